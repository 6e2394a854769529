"""The three packages type-check, and the whole tree passes the linter and the formatter."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.processes import REPO


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_packages_type_check() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra")
    result = run("mypy")  # memory_core, workers and cli (pyproject.toml)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, "run `ruff format .`\n" + result.stdout + result.stderr
