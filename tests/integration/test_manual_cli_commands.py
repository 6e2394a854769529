"""The inspection, manual-control and transfer commands, run in-process."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_core.ids import memory_id
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory

T0 = 1_700_000_000.0


def seed(home: Path, *memories) -> None:
    with Store.open(home) as store, store.transaction() as conn:
        for memory in memories:
            put_memory(conn, memory)


def as_json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_list_pages_filters_and_orders(home: Path, cli_run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "project"
    here.mkdir()
    seed(
        home,
        *[make_memory(f"Claim number {n}", at=T0 + n) for n in range(25)],
        make_memory("Captured here", origin=os.path.realpath(here), kind="decision", at=T0 - 5),
        make_memory("An old import", origin="legacy", kind="preference", at=T0 - 9, status="conflicted"),
    )
    first = as_json(cli_run("list", "--json"))
    assert len(first["memories"]) == 20
    assert first["memories"][0]["content"] == "Claim number 24"
    second = as_json(cli_run("list", "--page", "2", "--json"))
    assert [m["content"] for m in second["memories"]][-2:] == ["Captured here", "An old import"]
    monkeypatch.chdir(here)
    assert [m["content"] for m in as_json(cli_run("list", "--origin", "here", "--json"))["memories"]] == [
        "Captured here"
    ]
    assert len(as_json(cli_run("list", "--origin", "legacy", "--json"))["memories"]) == 1
    assert len(as_json(cli_run("list", "--kind", "decision", "--json"))["memories"]) == 1
    assert len(as_json(cli_run("list", "--status", "conflicted", "--json"))["memories"]) == 1
    text = cli_run("list")
    assert text.exit_code == 0 and "Claim number 24" in text.output


def test_manual_round_trip_from_another_directory(
    home: Path, cli_run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = make_memory("The API listens on port 8080", search_terms=["api port"])
    seed(home, target)
    monkeypatch.chdir(tmp_path)  # exact ids work from anywhere
    pinned = as_json(cli_run("pin", target.id, "--json"))
    assert pinned["memories"][0]["pinned"] is True
    assert as_json(cli_run("pin", target.id, "--json"))["changed"] is False
    corrected = as_json(cli_run("correct", target.id, "The API listens on port 9090", "--json"))
    new_id = memory_id("/work/app", "fact", "The API listens on port 9090")
    assert [m["status"] for m in corrected["memories"]] == ["superseded", "active"]
    shown = as_json(cli_run("show", new_id, "--json"))
    assert shown["evidence"]["basis"] == "manual_correction"
    assert shown["quality"]["source_priority"] == 4
    assert shown["search_terms"] == [] and shown["provenance"]["replaces"] == target.id
    assert [e["operation"] for e in shown["events"]] == ["correct"]
    history = as_json(cli_run("history", "--json"))
    assert [e["operation"] for e in history["events"]] == ["correct", "pin"]
    undone = as_json(cli_run("undo", str(corrected["event_id"]), "--json"))
    assert undone["undone_event"] == corrected["event_id"]
    restored = as_json(cli_run("show", target.id, "--json"))
    assert restored["status"] == "active" and restored["search_terms"] == ["api port"]
    assert restored["quality"]["content_blocked"] is True
    assert as_json(cli_run("forget", target.id, "--json"))["memories"][0]["status"] == "forgotten"
    text = cli_run("show", target.id)
    assert text.exit_code == 0 and "forgotten" in text.output and "summary/local" in text.output


@pytest.mark.parametrize(
    "args",
    [
        ("show", "0" * 24),
        ("forget", "0" * 24),
        ("pin", "abc"),
        ("correct", "f" * 24, "New text here"),
        ("resolve", "1" * 24),
        ("undo", "42"),
        ("undo", "last"),
        ("undo", "9" * 20),
        ("undo", "²"),
    ],
)
def test_unknown_ids_fail_with_one_line(cli_run, args: tuple[str, ...]) -> None:
    result = cli_run(*args, "--json")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("memevo: error: ")


def test_undo_refusal_is_one_line(home: Path, cli_run) -> None:
    target = make_memory()
    seed(home, target)
    pinned = as_json(cli_run("pin", target.id, "--json"))
    as_json(cli_run("forget", target.id, "--json"))
    result = cli_run("undo", str(pinned["event_id"]))
    assert result.exit_code == 1 and "changed since" in result.output


def test_export_and_import_files(home: Path, cli_run, tmp_path: Path) -> None:
    seed(home, make_memory("中文记忆：使用 SQLite"), make_memory("Prefer tabs", kind="preference"))
    out = tmp_path / "backup.jsonl"
    assert as_json(cli_run("export", str(out), "--json"))["lines"] == 2
    assert out.stat().st_mode & 0o777 == 0o600
    streamed = cli_run("export")
    assert streamed.exit_code == 0 and streamed.output == out.read_text(encoding="utf-8")
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"kind": "fact", "content": "The cache lives in Redis"}) + "\n", encoding="utf-8")
    report = as_json(cli_run("import", str(claims), "--json"))
    assert report["added"] == 1 and report["event_id"] is not None
    assert as_json(cli_run("import", str(claims), "--json"))["added"] == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "fact", "content": "fine text"}\n{oops\n', encoding="utf-8")
    result = cli_run("import", str(bad))
    assert result.exit_code == 2 and "line 2" in result.output
    assert len(as_json(cli_run("list", "--json"))["memories"]) == 3


@pytest.mark.parametrize("command", ["list", "history"])
def test_page_numbers_beyond_the_store_are_refused_or_empty(cli_run, command: str) -> None:
    huge = cli_run(command, "--page", "9" * 20)
    assert huge.exit_code == 2 and "--page" in huge.output
    last = as_json(cli_run(command, "--page", str(10**15), "--json"))
    assert last["page"] == 10**15 and not (last.get("memories") or last.get("events"))


def test_show_reports_quality_factors_as_of_now(cli_run, home: Path) -> None:
    from freezegun import freeze_time

    old_state = make_memory("Deploy of release 4.2 is pending review", kind="project_state", at=1_700_000_000.0)
    seed(home, old_state)
    with freeze_time("2023-11-18 22:13:20"):  # 4 days after the record's clock
        shown = json.loads(cli_run("show", old_state.id, "--json").output)
    quality = shown["quality"]
    assert quality["age_days"] == 4.0
    assert quality["freshness"] == round(0.5 + 0.5 * 2 ** (-4 / 3), 4)
    assert quality["dormant"] is False
    assert quality["evidence_weight"] == 1.04  # summary evidence, priority 1
    with freeze_time("2023-11-23 22:13:20"):  # 9 days: past the 7-day horizon
        text = cli_run("show", old_state.id).output
    assert "dormant" in text
