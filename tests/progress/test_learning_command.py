"""`memevo learning` shows each turn's capture decisions; `memevo status` splits processed jobs."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from click.testing import CliRunner

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from cli.main import cli
from memory_core.capture import learning_log
from memory_core.capture.learning_log import append_entry, log_path, read_entries
from memory_core.clock import now as clock_now
from memory_core.config import load_settings
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.progress.helpers import bash
from tests.support.fake_model import FakeModelServer, Reply
from workers.consolidate import consolidate_source

CWD = "/tmp"


def end_turn(home: Path, messages: list[str], operations=(), at: float | None = None) -> None:
    event = HookEvent(
        "turn_end",
        agent="test-agent",
        session_id="s1",
        cwd=CWD,
        user_messages=tuple(messages),
        operations=tuple(operations),
        final_message="ok",
    )
    handle_event(event, home, at if at is not None else clock_now())


def run(*args: str):
    return CliRunner().invoke(cli, ["learning", *args], catch_exceptions=False)


def test_learning_lists_captured_and_skipped_decisions_with_reasons(home: Path) -> None:
    with Store.open(home) as store:
        state = make_memory("Widget parser: not committed yet", origin=CWD, kind="project_state")
        seed(store, state)
    commit = bash("git commit -am x", "[main 1] x")
    end_turn(home, ["Commit the widget parser"], [commit], at=1_750_000_000.0)  # progress captured
    end_turn(home, ["Commit the widget parser"], [commit], at=1_750_000_010.0)  # the same turn again
    end_turn(home, ["Commit the billing export"], [bash("git commit -am y", "ok")], at=1_750_000_020.0)
    end_turn(home, ["list the files"], [bash("ls", "a b")], at=1_750_000_030.0)  # lookups only
    end_turn(home, ["run memevo status"], [bash("memevo status", "ok")], at=1_750_000_040.0)
    end_turn(home, ["do you remember the parser plan?"], [], at=1_750_000_050.0)
    end_turn(home, ["Remember that the parser uses PEG."], [], at=1_750_000_060.0)

    data = json.loads(run("--json", "-n", "7").output)
    decisions = [{d["source_type"]: d["reason"] for d in turn["decisions"]} for turn in data["turns"]]
    assert decisions == [
        {"user_statement": "captured", "progress": "no_work_operation"},
        {"user_statement": "question", "progress": "question"},
        {"user_statement": "no_statement", "progress": "excluded"},
        {"user_statement": "no_statement", "progress": "no_work_operation"},
        {"user_statement": "no_statement", "progress": "no_target"},
        {"user_statement": "no_statement", "progress": "duplicate"},
        {"user_statement": "no_statement", "progress": "captured"},
    ]
    captured = data["turns"][-1]["decisions"][1]
    assert captured["targets"] == [state.id] and captured["observations"] == 1
    assert data["turns"][-1]["message"] == "Commit the widget parser"

    text = run("--limit", "7").output
    assert "captured as source" in text and state.id in text
    for phrase in (
        "no remembered project state to update",
        "already captured",
        "no recognised work operation",
        "only memevo's own operations",
        "a question",
    ):
        assert phrase in text, phrase
    assert len(json.loads(run("--json", "-n", "2").output)["turns"]) == 2


def test_learning_with_no_log(home: Path) -> None:
    assert "no turns logged yet" in run().output
    assert json.loads(run("--json").output) == {"turns": []}


def test_log_is_private_bounded_and_holds_no_secrets(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(learning_log, "MAX_LINES", 20)
    secret = "sk-ant-" + "a1b2c3d4" * 4
    for i in range(50):
        end_turn(home, [f"deploy with key {secret} please, run {i}"], [], at=1_750_000_000.0 + i)
    path = log_path(home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 20 and secret not in path.read_text(encoding="utf-8")
    assert read_entries(home, 1)[0]["message"].endswith("run 49")
    for entry in read_entries(home, 50):
        assert len(entry["message"]) <= learning_log.EXCERPT_CHARS


def test_log_stays_under_its_byte_cap(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(learning_log, "MAX_BYTES", 4_000)
    for i in range(100):
        append_entry(home, {"at": float(i), "message": "x" * 100, "decisions": []})
    assert log_path(home).stat().st_size <= 4_000


def test_status_separates_jobs_processed_with_and_without_changes(home: Path, monkeypatch) -> None:
    with FakeModelServer() as model:
        monkeypatch.setenv("MEMEVO_MODEL_URL", model.base_url)
        monkeypatch.setenv("MEMEVO_MODEL", "fake-model")
        end_turn(home, ["Remember that the parser uses PEG."])
        end_turn(home, ["Remember that staging runs on port 8443."])
        end_turn(home, ["Remember that ok."])
        model.enqueue(
            Reply.of_claims([{"kind": "fact", "content": "The parser uses a PEG grammar"}]),
            Reply.of_claims([]),
            Reply.of_claims([]),
        )
        settings = load_settings()
        for _ in range(3):
            consolidate_source(settings, None)
    result = CliRunner().invoke(cli, ["status", "--json"], catch_exceptions=False)
    report = json.loads(result.output)
    assert report["jobs"]["done"] == 3
    assert report["processed"] == {"with_changes": 1, "without_changes": 2}
    text = CliRunner().invoke(cli, ["status"], catch_exceptions=False).output
    assert "processed:       1 changed memory, 2 changed nothing" in text
