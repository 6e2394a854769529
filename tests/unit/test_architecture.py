"""Import direction: memory_core is the domain; workers may use it; cli sits on top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FORBIDDEN = {
    "memory_core": {"huey", "click", "httpx", "openai", "requests", "urllib3", "aiohttp",
                    "workers", "cli"},
    "workers": {"cli", "click"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_upward(package: str) -> None:
    files = sorted((REPO / package).rglob("*.py"))
    assert files, f"{package} has no modules"
    offenders = {
        str(path.relative_to(REPO)): sorted(imported_roots(path) & FORBIDDEN[package])
        for path in files
        if imported_roots(path) & FORBIDDEN[package]
    }
    assert offenders == {}


def test_checker_sees_forbidden_imports(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import huey\nfrom click import echo\nfrom . import sibling\n")
    assert imported_roots(sample) == {"huey", "click"}


def test_only_clock_reads_time() -> None:
    """Domain code reads the clock only through memory_core.clock."""
    offenders = []
    for path in (REPO / "memory_core").rglob("*.py"):
        if path.name == "clock.py":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("time.time(", "datetime.now(", "datetime.utcnow("):
            if needle in text:
                offenders.append(f"{path.name}: {needle}")
    assert offenders == []
