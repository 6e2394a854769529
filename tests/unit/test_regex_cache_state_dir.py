"""Under ``PYTHONDONTWRITEBYTECODE`` (set by many container images) the compiled-pattern
cache lives in the state dir, so the hook keeps its programs there (issue 24, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.processes import memevo_process, python_process

_WHERE = """
import json
from cli import regex_cache
print(json.dumps(regex_cache.cache_directory()))
"""
# What a hook process does: seed, import the hook path, store what it compiled.
_HOOK_LIKE = """
import json
from cli import regex_cache
loaded = regex_cache.preload()
import memory_core.recall.service, memory_core.capture.turn, cli.hooks.entry
print(json.dumps([loaded, regex_cache.save()]))
"""


def where(env: dict[str, str]) -> str | None:
    result = python_process(_WHERE, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_cache_goes_to_the_state_dir_where_bytecode_is_not_written(tmp_path: Path) -> None:
    home = tmp_path / "state"
    home.mkdir()
    env = {"MEMEVO_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    assert where(env) == str(home / "cache")
    first = python_process(_HOOK_LIKE, env=env)
    assert first.returncode == 0, first.stderr
    loaded, saved = json.loads(first.stdout)
    assert loaded == 0 and saved > 20
    second = python_process(_HOOK_LIKE, env=env)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == [saved, 0]  # every program seeded, nothing new to store


def test_no_state_dir_no_cache(tmp_path: Path) -> None:
    missing = tmp_path / "not-yet"
    env = {"MEMEVO_HOME": str(missing), "PYTHONDONTWRITEBYTECODE": "1"}
    assert where(env) is None
    result = python_process(_HOOK_LIKE, env=env)
    assert result.returncode == 0 and json.loads(result.stdout) == [0, 0]
    assert not missing.exists()


def test_bytecode_written_keeps_the_cache_beside_it(tmp_path: Path) -> None:
    env = {"MEMEVO_HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": ""}
    assert where(env) == str(Path(__file__).resolve().parents[2] / "cli" / "__pycache__")


def test_the_hook_fills_the_state_dir_cache(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test-agent",
        "event": "user_prompt",
        "session_id": "s",
        "cwd": "/tmp",
        "prompt": "which port does Redis listen on?",
    }
    result = memevo_process("hook", "user_prompt", input=json.dumps(payload), env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert result.returncode == 0 and result.stderr == "", result.stderr
    kept = sorted(p.name.split(".")[0] for p in (home / "cache").iterdir())
    assert kept == ["modules", "regex"]  # the patterns, and the module code (tests/unit/test_module_cache.py)
