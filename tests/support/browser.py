"""Debian's chromium driven by Playwright, for the `memevo ui` tests.

The browser is the system's (``$MEMEVO_CHROMIUM``, else ``chromium`` on the PATH or
/usr/bin/chromium); Playwright's own browser downloads are never used. Without one the
browser tests skip; with ``MEMEVO_REQUIRE_BROWSER=1`` (CI) they fail instead. Screenshots
go to ``$MEMEVO_TEST_ARTIFACTS`` when set, else the test's tmp dir.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REQUIRE_ENV = "MEMEVO_REQUIRE_BROWSER"
BROWSER_ENV = "MEMEVO_CHROMIUM"
ARTIFACTS_ENV = "MEMEVO_TEST_ARTIFACTS"
# Read once at import: the `home` fixture clears every MEMEVO_ variable for each test.
_STARTUP_ENV = {name: os.environ[name] for name in (REQUIRE_ENV, BROWSER_ENV, ARTIFACTS_ENV) if name in os.environ}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_required() -> bool:
    return _STARTUP_ENV.get(REQUIRE_ENV, "").strip().lower() in {"1", "true", "yes"}


def chromium_path() -> Path | None:
    given = _STARTUP_ENV.get(BROWSER_ENV, "").strip()
    candidates = [given] if given else [shutil.which("chromium") or "", "/usr/bin/chromium"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def _unavailable(message: str) -> None:
    import pytest

    if browser_required():
        pytest.fail(f"{message} ({REQUIRE_ENV}=1 makes this an error)", pytrace=False)
    pytest.skip(message)


def artifacts_dir(tmp_path: Path) -> Path:
    """Where a test keeps its screenshots."""
    given = _STARTUP_ENV.get(ARTIFACTS_ENV, "").strip()
    directory = Path(given) if given else tmp_path / "artifacts"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@contextmanager
def chromium_page(profile: Path) -> Iterator[Any]:
    """A page of a headless chromium with a fresh profile in ``profile``."""
    binary = chromium_path()
    if binary is None:
        _unavailable("no chromium found (set MEMEVO_CHROMIUM or install Debian's chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(binary),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 860},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(15_000)
            yield page
        finally:
            context.close()
