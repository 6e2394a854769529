"""The domain package type-checks and the whole tree passes the linter."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.processes import REPO


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_memory_core_type_checks() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra")
    result = run("mypy", "memory_core")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
