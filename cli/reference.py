"""Generate docs/cli.md through the real CLI, so the reference never drifts.

    python -m cli.reference > docs/cli.md

Each section is exactly what ``memevo [COMMAND] --help`` prints (at 100 columns); a test
compares the whole file.
"""

from __future__ import annotations

from click.testing import CliRunner

from cli.main import COMMAND_MODULES, cli

HEADER = """# Command reference

Generated from `memevo --help` and each command's `--help` by `python -m cli.reference`;
a test fails when this file differs from what the CLI prints.
"""


def _help(*args: str) -> str:
    result = CliRunner().invoke(
        cli, [*args, "--help"], prog_name="memevo", terminal_width=100, max_content_width=100, catch_exceptions=False
    )
    if result.exit_code != 0:
        raise RuntimeError(f"memevo {' '.join(args)} --help failed: {result.output}")
    return result.output.rstrip("\n")


def render() -> str:
    """The whole reference as Markdown."""
    parts = [HEADER, "## memevo\n", "```text", _help(), "```\n"]
    for name in sorted(COMMAND_MODULES):
        parts += [f"## memevo {name}\n", "```text", _help(name), "```\n"]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
