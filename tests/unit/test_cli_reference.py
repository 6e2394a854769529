"""docs/cli.md is what the commands say about themselves."""

from __future__ import annotations

from cli.reference import render
from tests.conftest import REPO


def test_reference_is_current() -> None:
    current = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == render(), "docs/cli.md is stale: run `python -m cli.reference > docs/cli.md`"
