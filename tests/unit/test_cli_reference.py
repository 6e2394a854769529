"""docs/cli.md covers every command and option the CLI has (and no others).

The check is on substance (commands, options, arguments, summaries) rather than the exact
help layout, which belongs to the command-line library and may change between releases.
"""

from __future__ import annotations

import re

from cli.main import discover_commands
from tests.support.processes import REPO


def sections() -> dict[str, str]:
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    parts = re.split(r"^## memevo ?(\S*)\n", text, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_reference_lists_exactly_the_commands() -> None:
    documented = set(sections()) - {""}
    assert documented == set(discover_commands()), "regenerate: python -m cli.reference > docs/cli.md"


def test_reference_shows_every_option_argument_and_summary() -> None:
    docs = sections()
    for name, command in discover_commands().items():
        section = docs[name]
        summary = (command.help or "").strip().splitlines()[0]
        assert summary[:60] in " ".join(section.split()), (name, summary)
        for param in command.params:
            for flag in getattr(param, "opts", []):
                if param.param_type_name == "argument":
                    choices = getattr(param.type, "choices", None)
                    shown = "|".join(choices) if choices else param.human_readable_name.upper()
                    assert shown in section, (name, flag)
                else:
                    assert flag in section, (name, flag)
