"""``logs/hooks.log`` is bounded: a hook failing on every turn cannot fill the disk, and the
newest lines (what `memevo status` and doctor show) are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.hooks import hook_log


def test_the_log_keeps_its_newest_lines_within_its_bound(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_log, "MAX_BYTES", 4_000)
    for n in range(400):
        hook_log.log_failure(
            f"turn_end: failure number {n}", "Traceback (most recent call last):\n  boom" if n % 7 == 1 else None
        )
    path = home / "logs" / "hooks.log"
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) <= 4_000
    assert text.rstrip().endswith("failure number 399")  # the newest is kept
    assert "failure number 0 " not in text and "failure number 0\n" not in text  # the oldest went
    assert path.stat().st_mode & 0o777 == 0o600


def test_text_that_is_not_valid_utf8_is_escaped_not_lost(home: Path) -> None:
    hook_log.log_failure("hook: bad \udcff byte")
    assert "bad \\udcff byte" in (home / "logs" / "hooks.log").read_text(encoding="utf-8")
