"""`memevo recall`, `search` and `explain`: read-only, bounded, scriptable."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from memory_core.recall.service import write_last_diagnostics
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory
from tests.support.processes import memevo_process


def seed(home: Path, *contents: str, **extra) -> list[str]:
    """Claims written a minute ago: the commands read the real clock."""
    extra.setdefault("at", time.time() - 60)
    with Store.open(home) as store, store.transaction() as conn:
        memories = [make_memory(text, **extra) for text in contents]
        for memory in memories:
            put_memory(conn, memory)
    return [m.id for m in memories]


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.sqlite_only  # the memory.db file's bytes
def test_recall_leaves_memory_db_byte_identical(home: Path) -> None:
    seed(home, "SQLite listens on port 5432", "Redis listens on port 6380")
    db = home / "memory.db"
    before = digest_of(db)
    stamp = db.stat().st_mtime_ns
    result = memevo_process("recall", "sqlite port", "--json", env={"MEMEVO_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["claims"][0]["excerpt"] == "SQLite listens on port 5432"
    for args in (("search", "port"), ("explain", "redis port")):
        assert memevo_process(*args, env={"MEMEVO_HOME": str(home)}).returncode == 0
    assert digest_of(db) == before and db.stat().st_mtime_ns == stamp


def test_recall_json_has_ids_sources_and_digest(home: Path, cli_run) -> None:
    [memory_id] = seed(home, "SQLite listens on port 5432")
    data = json.loads(cli_run("recall", "SQLite port?", "--json").output)
    assert data["query"] == "SQLite port?"
    assert [(c["id"], c["source_id"]) for c in data["claims"]] == [(memory_id, "s" * 24)]
    assert data["digest"].startswith("<memevo-recall>") and memory_id in data["digest"]
    assert cli_run("recall", "SQLite port?").output.strip() == data["digest"]


def test_recall_without_a_database(home: Path, cli_run) -> None:
    result = cli_run("recall", "anything")
    assert result.exit_code == 0 and "no memory matches" in result.output
    assert not (home / "memory.db").exists()


def test_query_length_is_checked(home: Path, cli_run) -> None:
    seed(home, "SQLite listens on port 5432")
    for bad in ("", "   ", "x" * 513):
        result = cli_run("recall", bad)
        assert result.exit_code == 2
        assert "1-512" in result.output or "at most 512" in result.output
    assert cli_run("recall", "x" * 512).exit_code == 0
    assert cli_run("recall").exit_code == 2


def test_batch(home: Path, cli_run, tmp_path: Path) -> None:
    port, auth = seed(home, "SQLite listens on port 5432", "SQLite authentication uses a secret file")
    lines = [
        {"id": "q1", "query": "SQLite port?"},
        {"id": "q2", "query": "auth?", "context": ["SQLite", "port?"]},
        {"id": "q3", "query": "continue"},
        {"id": "q4", "query": ""},
        "not json",
        "[" * 100_000,  # nested too deep for the JSON parser: an error line, not a crash
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    out = [json.loads(line) for line in cli_run("recall", "--batch", str(batch)).output.splitlines()]
    assert [o["id"] for o in out] == ["q1", "q2", "q3", "q4", None, None]
    assert [c["id"] for c in out[0]["claims"]] == [port]
    assert [c["id"] for c in out[1]["claims"]] == [auth]
    assert out[2]["claims"] == [] and out[2]["digest"] == ""
    assert "error" in out[3] and out[4]["line"] == 5 and out[5]["line"] == 6 and "error" in out[5]
    assert cli_run("recall", "x", "--batch", str(batch)).exit_code == 2


def test_search_lists_up_to_ten(home: Path, cli_run) -> None:
    seed(home, *[f"Worker {n} listens on port {7000 + n}" for n in range(14)])
    data = json.loads(cli_run("search", "worker port", "--json").output)
    assert len(data["claims"]) == 10
    text = cli_run("search", "worker port").output
    assert text.count("listens on port") == 10


def test_explain_last_and_preview(home: Path, cli_run) -> None:
    seed(home, "SQLite listens on port 5432 behind the proxy")
    assert "no automatic recall recorded yet" in cli_run("explain").output
    write_last_diagnostics(
        home,
        {
            "trigger": "turn",
            "at": 1_700_000_000.0,
            "plan": {"mode": "standalone", "focus": ["sqlite"], "context": []},
            "lifecycle": {"indexed": 1},
            "candidates": [],
            "digest": {"claims": 0, "bytes": 0},
        },
    )
    shown = cli_run("explain").output
    assert "trigger:    turn" in shown and "focus: sqlite" in shown
    preview = cli_run("explain", "SQLite port?", "--json").output
    data = json.loads(preview)
    assert data["trigger"] == "preview"
    assert data["plan"]["focus"] == ["sqlite", "~port", "=port"]
    assert data["candidates"][0]["excluded"] is None
    assert "proxy" not in preview and len(preview.encode("utf-8")) <= 8000 + 2000  # indented JSON
    text = cli_run("explain", "SQLite port?").output
    assert "selected" in text and "raw" in text and "proxy" not in text


def test_tool_definition_matches_the_recall_command(home: Path, cli_run) -> None:
    port, _ = seed(home, "SQLite listens on port 5432", "Deploys happen on Fridays")
    tool = json.loads(cli_run("tool-definition").output)
    assert tool["name"] == "memory_recall"
    assert tool["input_schema"]["properties"]["query"]["maxLength"] == 512
    argv = [part.replace("{query}", "SQLite port?") for part in tool["command"]]
    assert argv[0] == "memevo"
    out = json.loads(cli_run(*argv[1:]).output)
    assert [c["id"] for c in out["claims"]] == [port]


def test_explain_says_which_gate_dropped_a_claim(home: Path, cli_run) -> None:
    port, auth, other = seed(
        home,
        "SQLite listens on port 5432",
        "SQLite authentication uses a secret file",
        "PostgreSQL listens on port 5433",
    )
    data = json.loads(cli_run("explain", "SQLite port?", "--claim", auth, "--json").output)
    assert data["claim"]["reason"] == "named_attribute_missing" and data["claim"]["stage"] == "gate"
    assert data["claim"]["missing"] == ["~port"]
    text = cli_run("explain", "SQLite port?", "--claim", other).output
    assert f"claim {other}: dropped by a relevance gate (named_subject_missing)" in text
    assert "missing: sqlite" in text
    assert f"claim {port}: selected" in cli_run("explain", "SQLite port?", "--claim", port).output
    missing = json.loads(cli_run("explain", "SQLite port?", "--claim", "0" * 24, "--json").output)
    assert missing["claim"]["reason"] == "not_found"
    assert cli_run("explain", "--claim", port).exit_code == 2
    assert cli_run("explain", "SQLite port?", "--claim", "nope").exit_code == 2


def test_explain_claim_never_scored(home: Path) -> None:
    """A claim the best-first scoring never reached still gets its reason."""
    from memory_core.recall.service import explain_claim, recall
    from memory_core.store.engines.database import Store as _Store

    ids = seed(home, "Worker pool threads: eight", *[f"Worker pool queue {n} drains jobs nightly" for n in range(80)])
    reader = _Store.open_readonly(home)
    try:
        now = time.time()
        result = recall(reader.conn, "worker pool threads", now=now)
        chosen = [c.memory_id for c in result.claims]
        assert chosen == [ids[0]] and result.diagnostics["lifecycle"]["matched"] == 1
        verdict = explain_claim(reader.conn, "worker pool threads", ids[-1], now=now)
        assert verdict["selected"] is False and verdict["reason"] == "focus_coverage"
        assert verdict["matched"] == ["worker", "pool"] and verdict["missing"] == ["thread"]
        # Asking about a claim changes nothing that is chosen.
        assert [c.memory_id for c in recall(reader.conn, "worker pool threads", now=now).claims] == chosen
    finally:
        reader.close()
