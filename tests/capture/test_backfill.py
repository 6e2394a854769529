"""`memevo backfill`: saved sessions captured as the live hooks capture them (cli.backfill).

Real transcripts recorded from the CLIs (tests/data) and hand-made broken ones; the real
store on both backends. The real CLIs' own sessions are backfilled in
tests/agents/test_backfill_real_clis.py.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli.backfill import claude_code as claude_reader
from cli.backfill.reading import SessionSkipped, Tally
from cli.backfill.run import Backfill
from memory_core.store.engines.database import Store
from tests.hooks.claude_data import SESSION, TRANSCRIPT, assistant_record, records, user_record

NOW = 1_800_000_000.0  # 2027-01-15, after the recorded sessions of 2026-12-03
LONG_AGO = 0.0
SAID = "remember that the staging database listens on port 5433"


def claude_home(tmp_path: Path, transcript_records: list[dict[str, Any]] | None = None, *, tail: str = "") -> Path:
    """A throwaway HOME whose Claude Code keeps one saved session (the recorded one, or ``records``)."""
    user = tmp_path / "user"
    project = user / ".claude" / "projects" / "-home-user-project"
    project.mkdir(parents=True, exist_ok=True)
    target = project / f"{SESSION}.jsonl"
    if transcript_records is None:
        shutil.copy(TRANSCRIPT, target)
    else:
        target.write_text("".join(json.dumps(r) + "\n" for r in transcript_records) + tail, encoding="utf-8")
    return user


def with_statement(text: str = SAID) -> list[dict[str, Any]]:
    return [*records(), user_record(text, "p-new-turn", uuid="u-x"), assistant_record("Noted.", uuid="a-x")]


def run(home: Path, user: Path, *, dry_run: bool = False, since: float = LONG_AGO, **env: str) -> dict[str, Any]:
    return Backfill(
        "claude-code", home, since=since, project=None, dry_run=dry_run, now=NOW, env={"HOME": str(user), **env}
    ).run()


def stored(home: Path) -> list[tuple[str, str, float, float]]:
    with Store.open(home) as store:
        rows = store.conn.execute(
            "SELECT source_type, body, created_at, next_due_at FROM sources ORDER BY next_due_at"
        ).fetchall()
    return [(kind, json.loads(body)["text"], float(created), float(due)) for kind, body, created, due in rows]


def test_a_saved_session_becomes_the_hooks_sources_once(home: Path, tmp_path: Path) -> None:
    user = claude_home(tmp_path, with_statement())
    first = run(home, user)
    assert (first["sessions_read"], first["turns_read"], first["bad_lines"]) == (1, 9, 0)
    assert first["sources"] == {"summary": 1, "user_statement": 1, "progress": 0}
    kinds = sorted((kind, text[:40]) for kind, text, _, _ in stored(home))
    assert kinds == [
        ("summary", "1. Primary Request and Intent: FAKE-COMP"),
        ("user_statement", SAID[:40]),
    ]
    again = run(home, user)
    assert again["sources_total"] == 0 and again["already_captured"] == 1
    assert len(stored(home)) == 2


def test_sources_are_dated_when_said_and_queued_behind_live_captures(home: Path, tmp_path: Path) -> None:
    run(home, claude_home(tmp_path, with_statement()))
    rows = stored(home)
    for _, _, created, due in rows:
        assert created < NOW - 30 * 86_400  # the session's own time (December 2026), not the run's
        assert due >= NOW  # due from the run on, one after another
    dues = [due for *_, due in rows]
    assert dues == sorted(dues) and dues[1] - dues[0] >= 86_400 / 5_000
    # A live capture made now is due before the backlog's second job.
    from memory_core.capture.intake import capture_source

    with Store.open(home) as store, store.transaction() as conn:
        capture_source(conn, source_type="user_statement", origin="/o", text="remember that x is y", now=NOW)
    assert [text for _, text, _, _ in stored(home)].index("remember that x is y") <= 1


def test_private_parts_never_reach_the_store(home: Path, tmp_path: Path) -> None:
    user = claude_home(tmp_path, with_statement(f"{SAID} <private>PIN 4242</private> <PRIVATE>rest of it"))
    result = run(home, user)
    assert result["sources"]["user_statement"] == 1
    texts = [text for _, text, _, _ in stored(home)]
    assert SAID in texts and not any("4242" in t or "rest of it" in t for t in texts)


def test_excluded_directories_are_not_read(home: Path, tmp_path: Path) -> None:
    user = claude_home(tmp_path, with_statement())
    result = run(home, user, MEMEVO_EXCLUDE="/home/user")  # the recorded session ran in /home/user/project
    assert result["sessions_excluded"] == 1 and result["sessions_read"] == 0 and result["sources_total"] == 0
    assert stored(home) == []


def test_other_projects_and_older_sessions_are_left_alone(home: Path, tmp_path: Path) -> None:
    user = claude_home(tmp_path, with_statement())
    other = Backfill(
        "claude-code", home, since=0, project="/elsewhere", dry_run=False, now=NOW, env={"HOME": str(user)}
    )
    assert other.run()["sessions_of_other_projects"] == 1
    assert run(home, user, since=NOW)["sessions_older_than_since"] == 1
    assert stored(home) == []


def test_a_dry_run_writes_nothing_and_says_what_it_would_do(home: Path, tmp_path: Path) -> None:
    user = claude_home(tmp_path, with_statement())
    dry = run(home, user, dry_run=True)
    assert not (home / "memory.db").exists()
    assert dry["dry_run"] and dry["sources"]["summary"] == 1 and dry["sources"]["user_statement"] == 1
    assert dry["model_calls"] == dry["sources_total"] and dry["model_tokens"] == dry["sources_total"] * 2_000
    assert dry["calls_per_day"] == 5_000 and dry["days"] is not None
    real = run(home, user)
    assert real["sources"]["user_statement"] == dry["sources"]["user_statement"]
    assert run(home, user, dry_run=True)["sources_total"] == 0  # all captured now


def test_bad_lines_are_skipped_and_counted(home: Path, tmp_path: Path) -> None:
    lines = with_statement()
    user = claude_home(tmp_path, lines[:5], tail="this is not json\n")
    target = next((user / ".claude" / "projects").rglob("*.jsonl"))
    with target.open("a", encoding="utf-8") as out:
        out.write("[1, 2]\n")  # JSON, but not an object
        out.writelines(json.dumps(r) + "\n" for r in lines[5:])
        out.write('{"type": "user", "trunc')  # cut by a crash
    result = run(home, user)
    assert result["bad_lines"] == 3 and result["sources"]["user_statement"] == 1


def test_unknown_formats_and_unreadable_places_are_skipped_with_a_line(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = claude_home(tmp_path, with_statement())
    projects = user / ".claude" / "projects"
    (projects / "-other").mkdir()
    (projects / "-other" / "weird.jsonl").write_text('{"format": 9}\n', encoding="utf-8")
    (projects / "-locked").mkdir()
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if str(path).endswith("-locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run(home, user)
    assert result["sources"]["user_statement"] == 1
    assert any("weird.jsonl: skipped: not a Claude Code transcript" in line for line in result["skipped"])
    assert any("-locked: directory skipped: cannot be read (Permission denied)" in line for line in result["skipped"])


def test_a_file_growing_while_read_is_read_as_it_was(tmp_path: Path) -> None:
    user = claude_home(tmp_path, records())
    path = str(next((user / ".claude" / "projects").rglob("*.jsonl")))
    tally = Tally()
    events = claude_reader.read_session(path, tally, 0.0)
    first = next(events)
    with open(path, "a", encoding="utf-8") as out:  # the agent writes on while backfill reads
        for record in with_statement()[-2:]:
            out.write(json.dumps(record) + "\n")
    rest = list(events)
    said = [m for e in (first, *rest) for m in e.event.user_messages]
    assert SAID not in said and tally.turns == 8


def test_an_overlong_line_is_skipped_without_being_held(tmp_path: Path) -> None:
    from cli.hooks.transcripts.stream import BLOCK_BYTES, MAX_RECORD_BYTES

    huge = json.dumps({"type": "user", "message": {"content": "x" * (MAX_RECORD_BYTES + 2 * BLOCK_BYTES)}})
    user = claude_home(tmp_path, with_statement()[:3], tail=huge + "\n")
    path = str(next((user / ".claude" / "projects").rglob("*.jsonl")))
    tally = Tally()
    list(claude_reader.read_session(path, tally, 0.0))
    assert tally.bad_lines == 1


def test_a_file_of_another_agent_is_an_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    shutil.copy(Path(__file__).parents[1] / "data" / "codex" / "rollout-memevo-hooks.jsonl", path)
    with pytest.raises(SessionSkipped, match="not a Claude Code transcript"):
        list(claude_reader.read_session(str(path), Tally(), 0.0))


def test_the_command_prints_a_summary_and_no_progress_bar_off_a_terminal(
    home: Path, tmp_path: Path, cli_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = claude_home(tmp_path, with_statement())
    monkeypatch.setenv("HOME", str(user))
    result = cli_run("backfill", "claude-code", "--all-projects", "--since", "2026-01-01", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "would queue 2 (1 compaction summaries, 1 statements" in result.output
    assert "model calls" in result.output and "at half of today's budget of 5,000 calls" in result.output
    data = json.loads(cli_run("backfill", "claude-code", "--all-projects", "--since", "400d", "--json").output)
    assert data["sources_total"] == 2
    status = cli_run("status")
    assert "backfill:        1 of them queued behind live captures" in status.output, status.output  # one is due
    bad = cli_run("backfill", "claude-code", "--since", "yesterday")
    assert bad.exit_code != 0 and "--since must be a date" in bad.output


def test_a_killed_run_continues_where_it_stopped(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = claude_home(tmp_path, with_statement())
    second = [
        {**r, "sessionId": "second-session"} if r.get("sessionId") else r
        for r in with_statement("remember that ci uses node 22")
    ]
    project = user / ".claude" / "projects" / "-home-user-project"
    (project / "second-session.jsonl").write_text("".join(json.dumps(r) + "\n" for r in second), encoding="utf-8")
    os.utime(project / "second-session.jsonl", (NOW - 10, NOW - 10))  # read after the first
    from cli.backfill import capture

    real_capture = capture.capture_event
    calls = {"n": 0}

    def dies_in_the_second_session(conn: Any, home_: Path, event: Any, at: float, origin: str) -> Any:
        if event.session_id == "second-session":
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt  # killed mid-session
        return real_capture(conn, home_, event, at, origin)

    monkeypatch.setattr(capture, "capture_event", dies_in_the_second_session)
    with pytest.raises(KeyboardInterrupt):
        run(home, user)
    assert len(stored(home)) == 2  # the first session's sources; the second's transaction rolled back
    monkeypatch.setattr(capture, "capture_event", real_capture)
    resumed = run(home, user)
    assert resumed["sources_total"] == 2 and resumed["already_captured"] == 1
    texts = sorted(text[:30] for _, text, _, _ in stored(home))
    assert len(texts) == 4 and "remember that ci uses node 22" in texts


RECORDED = {
    "claude-code": TRANSCRIPT,
    "codex": Path(__file__).parents[1] / "data" / "codex" / "rollout-memevo-hooks.jsonl",
    "gemini": Path(__file__).parents[1] / "data" / "gemini" / "session" / "transcript.jsonl",
    "pi": Path(__file__).parents[1] / "data" / "pi" / "session.jsonl",
}


@pytest.mark.parametrize("agent", sorted(RECORDED))
def test_every_reader_counts_broken_lines_and_refuses_an_unknown_format(agent: str, tmp_path: Path) -> None:
    from cli.backfill.run import reader_for

    read = reader_for(agent)
    clean = Tally()
    turns = [e for e in read(str(RECORDED[agent]), clean, 0.0) if e.event.event == "turn_end"]
    assert turns and clean.bad_lines == 0
    broken = tmp_path / "broken.jsonl"
    text = RECORDED[agent].read_text(encoding="utf-8")
    lines = text.splitlines()
    # A line of garbage after the first record, and the last record cut by a crash.
    broken.write_text(
        "\n".join([lines[0], "{not json", *lines[1:-1], lines[-1][: len(lines[-1]) // 2]]), encoding="utf-8"
    )
    tally = Tally()
    list(read(str(broken), tally, 0.0))
    assert tally.bad_lines == 2
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "something else", "version": 99}\n{"type": "user"}\n', encoding="utf-8")
    with pytest.raises(SessionSkipped):
        list(read(str(other), Tally(), 0.0))


def test_a_gemini_chat_too_large_to_replay_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.backfill import gemini

    monkeypatch.setattr(gemini, "MAX_REPLAY_BYTES", 100)
    with pytest.raises(SessionSkipped, match="larger than the 100"):
        list(gemini.read_session(str(RECORDED["gemini"]), Tally(), 0.0))


def test_live_captures_go_before_a_backlog_that_came_due_while_the_budget_was_spent(home: Path, tmp_path: Path) -> None:
    """A day's budget spent: the backlog's jobs come due meanwhile, and live captures are made
    after them. Once the budget resets, the worker takes the live captures first, then the
    backlog in its own order."""
    from memory_core.capture.intake import capture_source
    from memory_core.jobs.lifecycle import due_source_ids

    run(home, claude_home(tmp_path, with_statement()))
    with Store.open(home) as store:
        backlog = [row[0] for row in store.conn.execute("SELECT id FROM sources ORDER BY next_due_at")]
    assert len(backlog) == 2
    later = NOW + 86_400.0  # both backlog jobs are due by then
    with Store.open(home) as store, store.transaction() as conn:
        live = [
            capture_source(
                conn, source_type="user_statement", origin="/o", text=f"remember that x{n} is y", now=at
            ).source_id
            for n, at in enumerate((later - 600.0, later - 60.0))
        ]
    with Store.open(home) as store:
        assert due_source_ids(store.conn, later + 1.0) == [*live, *backlog]
    # A live capture whose first attempt came two days late and failed is still live: its
    # retry counts from the failure, long after it was said.
    from memory_core.jobs.lifecycle import fail_job, lease_job
    from memory_core.records import ErrorCode

    late = later + 2 * 86_400.0
    with Store.open(home) as store, store.transaction() as conn:
        lease = lease_job(conn, owner="w1", now=late, lease_seconds=150.0, source_id=live[0])
        assert lease is not None
        fail_job(conn, lease, ErrorCode.UNAVAILABLE, late)
    with Store.open(home) as store:
        assert due_source_ids(store.conn, late + 3_600.0) == [live[1], live[0], *backlog]
