"""docs/cli.md is exactly what the real CLI prints for --help, command by command."""

from __future__ import annotations

from cli.reference import render
from tests.support.processes import REPO


def test_reference_is_what_the_cli_prints() -> None:
    documented = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert documented == render(), "regenerate: python -m cli.reference > docs/cli.md"


def test_reference_shows_the_real_help_option_names() -> None:
    # The group's context settings apply: every command takes -h as well as --help.
    assert "-h, --help" in render()
