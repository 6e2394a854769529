"""The click-free hook entry reads exactly the command lines agents are configured with and
leaves every other one to the click command (which prints the same results and messages)."""

from __future__ import annotations

import pytest

from cli.hooks import adapters, entry


def test_adapter_names_match_the_adapters() -> None:
    assert entry.ADAPTER_NAMES == adapters.ADAPTER_NAMES


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        ([], (None, None)),
        (["user_prompt"], ("user_prompt", None)),
        (["--agent", "claude-code"], (None, "claude-code")),
        (["--agent=codex"], (None, "codex")),
        (["--agent", "generic", "turn_end"], ("turn_end", "generic")),
        (["turn_end", "--agent", "pi"], ("turn_end", "pi")),
        (["not-an-event"], ("not-an-event", None)),  # run_hook refuses it, with the same message as before
    ],
)
def test_agents_command_lines_are_read_here(args: list[str], parsed: tuple[str | None, str | None]) -> None:
    assert entry.parse_argv(args) == parsed


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-h"],
        ["--agent"],
        ["--agent", "claude"],
        ["--agent="],
        ["a", "b"],
        ["--bogus", "a"],
        ["--", "user_prompt"],
        [""],
        ["--agent", "pi", "--agent", "pi"],
        ["-"],
    ],
)
def test_everything_else_goes_to_click(args: list[str]) -> None:
    assert entry.parse_argv(args) is None


def test_the_console_entry_never_loads_click_for_a_hook() -> None:
    import subprocess
    import sys

    from tests.support.processes import REPO

    probe = (
        "import sys; sys.argv = ['memevo', 'hook', 'session_end']\n"
        "from cli.main import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(code, 'click' in sys.modules, 'cli.group' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], input=b"{}", capture_output=True, cwd=REPO, timeout=60)
    assert result.stdout.decode().split() == ["0", "False", "False"], result.stderr
