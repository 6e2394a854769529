"""The injection log: written where digests are printed and lookups answered, private,
bounded, never holding the prompt or query, and listed by `memevo log`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.reports import injection_log
from memory_core.reports.injection_log import log_path, read_injections, record_injection
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.support.processes import memevo_process

PROMPT = "which node version does the build need? secret-word-xyzzy"


def _seed(store: Store) -> str:
    memory = make_memory("The build needs node 20 on the staging runners", at=clock.now() - 60)
    seed(store, memory)
    return memory.id


@pytest.mark.sqlite_only  # a hook on PostgreSQL runs this same dispatch inside `memevo serve`
def test_the_per_turn_digest_is_logged_without_the_prompt(store: Store, home: Path) -> None:
    memory_id = _seed(store)
    payload = {"schema": "memevo.hook/v1", "event": "user_prompt", "cwd": "/work/app", "session_id": "s-1"}
    result = memevo_process("hook", "user_prompt", input=json.dumps({**payload, "prompt": PROMPT}))
    assert result.returncode == 0 and "node 20" in result.stdout
    entries = read_injections(home, 10)
    assert len(entries) == 1
    entry = entries[0]
    assert entry["kind"] == "digest" and entry["agent"] == "generic" and entry["session"] == "s-1"
    assert entry["claims"] == [memory_id] and entry["bytes"] == len(result.stdout.rstrip("\n").encode())
    text = log_path(home).read_text()
    assert "xyzzy" not in text and "build node" not in text
    assert stat.S_IMODE(log_path(home).stat().st_mode) == 0o600


def test_a_lookup_is_logged_and_listed_by_memevo_log(store: Store, home: Path, cli_run) -> None:
    memory_id = _seed(store)
    assert "node 20" in cli_run("recall", "build node").output
    assert cli_run("recall", "completely unrelated gardening tulips").exit_code == 0
    data = json.loads(cli_run("log", "--json").output)["injections"]
    assert [e["kind"] for e in data] == ["lookup", "lookup"]
    assert data[1]["claims"] == [memory_id] and data[0]["claims"] == []
    text = cli_run("log").output
    assert memory_id in text and "lookup" in text and "build node" not in text
    assert "gardening" not in log_path(home).read_text()


def test_nothing_matched_in_a_turn_logs_nothing(store: Store, home: Path) -> None:
    _seed(store)
    payload = {"schema": "memevo.hook/v1", "event": "user_prompt", "cwd": "/w", "prompt": "tulips in the garden"}
    memevo_process("hook", "user_prompt", input=json.dumps(payload))
    assert read_injections(home, 10) == []


def test_the_log_is_bounded_and_fails_open(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(injection_log, "MAX_BYTES", 2_000)
    for n in range(100):
        record_injection(
            home,
            kind="digest",
            at=1_700_000_000 + n,
            agent="codex",
            session_id="s",
            project="/p",
            claim_ids=["a" * 24],
            size_bytes=10,
        )
    size = log_path(home).stat().st_size
    assert size <= 2_000
    newest = read_injections(home, 1)[0]
    assert newest["at"] == 1_700_000_099
    blocked = home / "blocked"
    blocked.write_text("a file where the state dir should be")
    record_injection(
        blocked, kind="lookup", at=1.0, agent=None, session_id=None, project=None, claim_ids=[], size_bytes=0
    )
    with pytest.raises(ValueError):
        injection_log.injection_entry(
            kind="prompt", at=1.0, agent=None, session_id=None, project=None, claim_ids=[], size_bytes=0
        )


def test_an_injection_names_its_project_as_capture_does(tmp_path: Path, home: Path) -> None:
    from memory_core.capture.intake import canonical_origin
    from tests.support.git_checkouts import make_repo

    repo = make_repo(tmp_path / "shop", "git@github.com:acme/shop.git")
    (repo / "src").mkdir()
    assert injection_log.project_of(str(repo / "src"), home) == "github.com/acme/shop"
    assert injection_log.project_of(str(repo / "src"), home) == canonical_origin(str(repo / "src"), home)
    assert injection_log.project_of(str(tmp_path), home) == str(tmp_path.resolve())
    assert injection_log.project_of(None, home) is None
