"""`memevo install codex` / `memevo uninstall codex`, and what `memevo doctor` says of Codex's trust."""

from __future__ import annotations

import os
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cli.install.actions import install
from cli.install.check import agent_checks
from cli.install.codex import TARGET, hook_hash
from cli.install.settings_json import find_ours
from tests.install.support import (
    INSTALLED_MEMEVO,
    backups,
    dump,
    load,
    needs_installed_memevo,
    reinstall_and_uninstall,
    run,
    run_installed,
)
from tests.support.processes import REPO

DATA = REPO / "tests" / "data" / "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
RECORDED_LAUNCHER = ["/home/user/.venv/bin/memevo"]  # what tests/data/codex/trusted-hooks.json runs
RECORDED_CODEX_HOME = "/home/user/.codex"
LABELS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "SessionEnd": "session_end",
}  # the event names of Codex's trust keys


@pytest.fixture(autouse=True)
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway ``$CODEX_HOME`` (HOME and the project come from the install conftest)."""
    path = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(path))
    return path


def command() -> str:
    return shlex.join([str(INSTALLED_MEMEVO), "hook", "--agent", "codex"])


def others_hooks() -> dict[str, Any]:
    """Someone else's hooks.json: a recorder on memevo's events and a tool hook, plus an unknown key."""
    recorder = {"type": "command", "command": "python3 /home/user/.capture/rec.py", "timeout": 10}
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [recorder]}],
            "Stop": [{"hooks": [recorder]}],
            "SessionStart": [{"matcher": "startup", "hooks": [recorder]}],
        },
        "_note": "naïve 中文",
    }


def test_install_writes_the_user_hooks_file_and_says_trust_is_needed(codex_home: Path) -> None:
    result = run("install", "codex")
    assert result.exit_code == 0, result.output
    path = codex_home / "hooks.json"
    assert f"in {path} (user scope)" in result.output
    assert "/hooks" in result.output and "trust" in result.output and "memevo doctor" in result.output
    entry = {"type": "command", "command": command()}
    assert load(path) == {
        "hooks": {
            "SessionStart": [{"matcher": "", "hooks": [{**entry, "timeout": 10}]}],
            "UserPromptSubmit": [{"matcher": "", "hooks": [{**entry, "timeout": 10}]}],
            "Stop": [{"matcher": "", "hooks": [{**entry, "timeout": 30}]}],
            "SessionEnd": [{"matcher": "", "hooks": [{**entry, "timeout": 3}]}],  # Codex's own 3 s limit
        }
    }
    # memevo never marks its hooks trusted: config.toml holds its MCP server only
    assert list(tomllib.loads((codex_home / "config.toml").read_text())) == ["mcp_servers"]


def test_install_install_uninstall_leaves_the_file_byte_for_byte(codex_home: Path) -> None:
    path = codex_home / "hooks.json"
    path.parent.mkdir(parents=True)
    original = dump(others_hooks())
    path.write_bytes(original)

    assert run("install", "codex").exit_code == 0
    installed = load(path)
    assert set(find_ours(installed, TARGET.is_ours)) == set(EVENTS)
    assert installed["hooks"]["Stop"][0] == others_hooks()["hooks"]["Stop"][0]  # theirs first, kept
    assert installed["hooks"]["PreToolUse"] == others_hooks()["hooks"]["PreToolUse"]
    assert installed["_note"] == "naïve 中文"
    [backup] = backups(path)
    assert backup.read_bytes() == original
    reinstall_and_uninstall("codex", path, original, backup)
    assert run("uninstall", "codex").output.strip().endswith("nothing changed")


def test_without_codex_home_the_user_file_is_in_home_dot_codex(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CODEX_HOME")
    assert run("install", "codex").exit_code == 0
    assert find_ours(load(Path(os.environ["HOME"]) / ".codex" / "hooks.json"), TARGET.is_ours)


def test_project_scope_and_dry_run(codex_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "elsewhere"
    project.mkdir()
    dry = run("install", "codex", "--scope", "project", "--project-dir", str(project), "--dry-run")
    assert dry.exit_code == 0 and "+++ " in dry.output and "dry run" in dry.output
    assert not (project / ".codex").exists()
    assert run("install", "codex", "--scope", "project", "--project-dir", str(project)).exit_code == 0
    assert set(find_ours(load(project / ".codex" / "hooks.json"), TARGET.is_ours)) == set(EVENTS)
    assert not (codex_home / "hooks.json").exists()
    assert run("install", "codex", "--scope", "local").exit_code != 0  # Codex has no local scope


def test_an_invalid_hooks_file_is_refused_untouched(codex_home: Path) -> None:
    path = codex_home / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"hooks": {"Stop": {}}}')
    result = run("install", "codex")
    assert result.exit_code != 0 and str(path) in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == b'{"hooks": {"Stop": {}}}'


# -- trust ----------------------------------------------------------------------------------------


def recorded_states(hooks_path: Path) -> str:
    """The ``[hooks.state]`` table Codex 0.169.1 wrote when its user trusted memevo's hooks,
    with the keys naming ``hooks_path`` instead of the recorded file."""
    text = (DATA / "trusted-config.toml").read_text(encoding="utf-8")
    return text.replace(f"{RECORDED_CODEX_HOME}/hooks.json", str(hooks_path))


def install_recorded(codex_home: Path) -> Path:
    """memevo's hooks as they were when Codex trusted them (same launcher, same entries)."""
    install(TARGET, "user", project_dir=Path.cwd(), dry_run=False, now=0, launcher=RECORDED_LAUNCHER)
    path = codex_home / "hooks.json"
    assert load(path) == load(DATA / "trusted-hooks.json")
    return path


def trust_problems(project: Path | None = None) -> list[dict[str, Any]]:
    """Doctor's Codex problems but the launcher's (the recorded launcher does not exist here)."""
    checks = agent_checks(TARGET, project or Path.cwd(), os.environ)
    return [c for c in checks if c["status"] != "ok" and "cannot run" not in c["summary"]]


def test_the_trust_hash_is_the_one_codex_recorded() -> None:
    import tomllib

    states = tomllib.loads((DATA / "trusted-config.toml").read_text(encoding="utf-8"))["hooks"]["state"]
    hooks = load(DATA / "trusted-hooks.json")["hooks"]
    assert len(states) == len(EVENTS) == len(hooks)
    for event, groups in hooks.items():
        key = f"{RECORDED_CODEX_HOME}/hooks.json:{LABELS[event]}:0:0"
        assert hook_hash(event, groups[0], groups[0]["hooks"][0]) == states[key]["trusted_hash"], event


def test_doctor_says_untrusted_hooks_do_not_run(codex_home: Path) -> None:
    install_recorded(codex_home)
    [problem] = trust_problems()
    assert problem["status"] == "error"
    assert "not trusted in Codex" in problem["summary"] and all(e in problem["summary"] for e in EVENTS)
    assert "/hooks" in problem["fix"]


def test_doctor_is_quiet_about_hooks_codex_trusts(codex_home: Path) -> None:
    path = install_recorded(codex_home)
    (codex_home / "config.toml").write_text('model = "x"\n\n' + recorded_states(path), encoding="utf-8")
    assert trust_problems() == []


def test_doctor_says_when_hooks_changed_since_they_were_trusted(codex_home: Path) -> None:
    path = install_recorded(codex_home)
    (codex_home / "config.toml").write_text(recorded_states(path), encoding="utf-8")
    assert run("install", "codex").exit_code == 0  # this venv's memevo: another command, another hash
    [changed] = [c for c in agent_checks(TARGET, Path.cwd(), os.environ) if c["status"] != "ok"]
    assert changed["status"] == "warn" and "changed since Codex trusted them" in changed["summary"]
    assert "/hooks" in changed["fix"]


def test_doctor_reports_disabled_hooks_and_an_unreadable_config(codex_home: Path) -> None:
    path = install_recorded(codex_home)
    first = 'trusted_hash = "sha256:2f5d'  # SessionStart's
    states = recorded_states(path).replace(first, "enabled = false\n" + first)
    (codex_home / "config.toml").write_text(states, encoding="utf-8")
    [disabled] = trust_problems()
    assert disabled["status"] == "error" and "disabled in Codex: SessionStart" in disabled["summary"]
    (codex_home / "config.toml").write_text("[hooks.state\nbroken", encoding="utf-8")
    [unknown] = trust_problems()
    assert unknown["status"] == "warn"
    assert unknown["summary"].startswith("trust unknown: open /hooks in Codex to trust memevo's hooks")


def test_doctor_says_a_project_install_needs_a_trusted_project(codex_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    install(TARGET, "project", project_dir=project, dry_run=False, now=0, launcher=RECORDED_LAUNCHER)
    hooks_path = project / ".codex" / "hooks.json"
    codex_home.mkdir(exist_ok=True)
    config = codex_home / "config.toml"
    config.write_text(recorded_states(hooks_path), encoding="utf-8")  # the hooks are trusted, the project not
    [project_check] = trust_problems(project)
    assert project_check["status"] == "warn" and "is not trusted yet" in project_check["summary"]
    config.write_text(
        recorded_states(hooks_path) + f'\n[projects."{tmp_path}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    assert trust_problems(project) == []  # an ancestor's trust counts
    config.write_text(
        recorded_states(hooks_path) + f'\n[projects."{project}"]\ntrust_level = "untrusted"\n', encoding="utf-8"
    )
    [refused] = trust_problems(project)
    assert refused["status"] == "error" and "is marked untrusted" in refused["summary"]


def test_doctor_text_names_codex_and_the_fix(codex_home: Path) -> None:
    assert run("install", "codex").exit_code == 0
    text = run("doctor").output
    assert "codex" in text and "not trusted in Codex" in text and "fix: open Codex (`codex`) and run /hooks" in text


@needs_installed_memevo
def test_real_memevo_process(codex_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CODEX_HOME": str(codex_home)}
    done = run_installed("install", "codex", env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert {e[0]["command"] for e in find_ours(load(codex_home / "hooks.json"), TARGET.is_ours).values()} == {command()}
    assert "/hooks" in done.stdout
