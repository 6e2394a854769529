"""The agent-neutral pieces: recognising memevo's entries, merging, writing safely."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.install.claude_code import TARGET
from cli.install.executable import current_launcher, launcher_problem
from cli.install.settings_json import SettingsFileError, merge_hooks, read_settings, write_settings
from cli.install.target import launcher_of
from tests.install.support import INSTALLED_MEMEVO
from tests.support.npm_cli import agent_clis_required


@pytest.mark.parametrize(
    ("command", "launcher"),
    [
        ("memevo hook --agent claude-code", ["memevo"]),
        ("/a/b/memevo hook --agent claude-code", ["/a/b/memevo"]),
        ("'/a b/memevo' hook --agent=claude-code", ["/a b/memevo"]),
        ("/a/memevo hook session_start --agent claude-code", ["/a/memevo"]),
        ("/venv/bin/python3.12 -m cli hook --agent claude-code", ["/venv/bin/python3.12", "-m", "cli"]),
        ("C:/tools/MEMEVO.EXE hook --agent claude-code", ["C:/tools/MEMEVO.EXE"]),
        ("memevo hook --agent generic", None),
        ("memevo hook --agent claude-code-x", None),
        ("echo memevo hook --agent claude-code", None),
        ("memevo-dev hook --agent claude-code", None),
        ("node -m cli hook --agent claude-code", None),
        ("memevo recall --agent claude-code", None),
        ("memevo hook --agent", None),
        ("'unterminated hook --agent claude-code", None),
    ],
)
def test_recognising_memevo_commands(command: str, launcher: list[str] | None) -> None:
    assert launcher_of(command, "claude-code") == launcher


def test_only_command_entries_are_ours() -> None:
    assert TARGET.is_ours({"type": "command", "command": "memevo hook --agent claude-code"})
    assert TARGET.is_ours({"command": "memevo hook --agent claude-code"})  # type defaults to command
    assert not TARGET.is_ours({"type": "http", "command": "memevo hook --agent claude-code"})
    assert not TARGET.is_ours({"type": "command", "command": ["memevo"]})
    assert not TARGET.is_ours("memevo hook --agent claude-code")


def test_hook_command_is_shell_quoted() -> None:
    assert TARGET.hook_command(["/my tools/memevo"]) == "'/my tools/memevo' hook --agent claude-code"
    assert launcher_of(TARGET.hook_command(["/my tools/memevo"]), "claude-code") == ["/my tools/memevo"]


def test_merge_is_idempotent_and_reversible() -> None:
    wanted = TARGET.entries(["/x/memevo"])
    base = {"b": 1, "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo"}]}]}, "a": 2}
    once = merge_hooks(base, wanted, TARGET.is_ours)
    assert merge_hooks(once, wanted, TARGET.is_ours) == once
    back = merge_hooks(once, {}, TARGET.is_ours)
    assert back == base and list(back) == list(base) and list(back["hooks"]) == ["Stop"]
    assert base["hooks"]["Stop"][0]["hooks"] == [{"type": "command", "command": "echo"}]  # input not mutated
    assert merge_hooks({}, {}, TARGET.is_ours) == {}
    assert merge_hooks({"hooks": {}}, {}, TARGET.is_ours) == {"hooks": {}}


def test_timeouts_in_another_unit() -> None:
    from dataclasses import replace

    gemini_like = replace(TARGET, timeout_unit=0.001)
    assert gemini_like.entries(["memevo"])["Stop"]["timeout"] == 30_000
    assert "timeout" not in gemini_like.entries(["memevo"])["SessionEnd"]


def test_a_file_changed_since_reading_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    path = tmp_path / "d" / "settings.json"
    path.write_text("{}", encoding="utf-8")
    file = read_settings(path)
    path.write_text('{"theme": "light"}', encoding="utf-8")  # the agent wrote it meanwhile
    with pytest.raises(SettingsFileError, match="changed while memevo was editing it"):
        write_settings(file, '{"hooks": {}}\n', 0.0)
    assert path.read_text(encoding="utf-8") == '{"theme": "light"}'
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_current_launcher_is_the_venv_script() -> None:
    if INSTALLED_MEMEVO.is_file() or agent_clis_required():  # CI installs it: never skipped there
        assert current_launcher() == [str(INSTALLED_MEMEVO)]
    assert launcher_problem(current_launcher()) is None


def test_launcher_problems(tmp_path: Path) -> None:
    assert "does not exist" in (launcher_problem([str(tmp_path / "memevo")]) or "")
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert "not an executable" in (launcher_problem([str(plain)]) or "")
    orphan = tmp_path / "orphan" / "memevo"
    orphan.parent.mkdir()
    orphan.write_text(f"#!{tmp_path}/gone/python3\nprint()\n")
    orphan.chmod(0o755)
    assert "which does not exist" in (launcher_problem([str(orphan)]) or "")
    assert "not on PATH" in (launcher_problem(["memevo-surely-not-on-path"]) or "")
