"""Generate docs/cli.md from the commands' own help, so the reference never drifts.

    python -m cli.reference > docs/cli.md
"""

from __future__ import annotations

import click

from cli.main import cli, discover_commands

HEADER = """# Command reference

Generated from `memevo --help` and each command's `--help` by `python -m cli.reference`;
a test fails when a command, option or summary is missing here.
"""


def _help(command: click.Command, name: str) -> str:
    with click.Context(command, info_name=name, terminal_width=100, max_content_width=100) as ctx:
        return command.get_help(ctx)


def render() -> str:
    """The whole reference as Markdown."""
    parts = [HEADER, "## memevo\n", "```text", _help(cli, "memevo"), "```\n"]
    for name, command in sorted(discover_commands().items()):
        parts += [f"## memevo {name}\n", "```text", _help(command, f"memevo {name}"), "```\n"]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
