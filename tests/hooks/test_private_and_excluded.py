"""Text marked ``<private>`` and sessions in excluded directories never reach the store, the
logs, the prompt stash or recall's diagnostics: ``memevo hook`` as Claude Code runs it."""

from __future__ import annotations

from pathlib import Path

from tests.hooks.claude_data import (
    TURN_AFTER_COMPACT,
    TURN_BASH,
    assistant_record,
    hook_process,
    payload,
    records_until,
    user_record,
    write_records,
)
from tests.hooks.support import sources

SECRET = "ZEBRA-PASSPHRASE-owl"


def everything_written(home: Path) -> str:
    """The text of every file in the state dir (the store read through SQLite)."""
    found = []
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.name.startswith("memory.db"):
            found.append(path.read_bytes().decode("utf-8", errors="replace"))
    found.extend(repr(row) for row in sources(home))
    return "\n".join(found)


def test_private_text_of_a_turn_is_never_kept(home: Path, tmp_path: Path) -> None:
    said = f"remember that the staging database listens on port 5433 <private>{SECRET}</private>"
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    prompt = hook_process(payload("turn10-after-compact.UserPromptSubmit.1", transcript, prompt=said))
    assert (prompt.returncode, prompt.stderr) == (0, b"")
    stop = hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert (stop.returncode, stop.stdout, stop.stderr) == (0, b"", b"")
    assert [(s[0], s[4]) for s in sources(home)] == [
        ("user_statement", "remember that the staging database listens on port 5433")
    ]
    assert SECRET not in everything_written(home)


def test_an_unclosed_private_tag_drops_the_rest_of_the_message(home: Path, tmp_path: Path) -> None:
    said = f"remember that builds need node 20 <PRIVATE>and {SECRET} for the rest"
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert [s[4] for s in sources(home)] == ["remember that builds need node 20"]
    assert SECRET not in everything_written(home)


def test_a_private_recall_query_leaves_no_trace(home: Path, seeded: str) -> None:
    query = f"which port does the staging database use? <private>{SECRET}</private>"
    result = hook_process(payload("turn2-bash.UserPromptSubmit.1", prompt=query))
    assert result.returncode == 0 and seeded in result.stdout.decode()  # recall still answers
    assert SECRET not in everything_written(home)


def test_a_private_compaction_summary_is_not_captured(home: Path) -> None:
    data = payload("turn9-compact.PostCompact.1")
    data["compact_summary"] = f"<private>{SECRET}</private>"
    result = hook_process(data)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == [] and SECRET not in everything_written(home)


def test_an_excluded_directory_is_neither_captured_nor_recalled(home: Path, tmp_path: Path, seeded: str) -> None:
    env = {"MEMEVO_EXCLUDE": "/home/user/*"}  # the recorded session's cwd is /home/user/project
    said = f"remember that {SECRET} is the staging port"
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    prompt = hook_process(
        payload("turn10-after-compact.UserPromptSubmit.1", transcript, prompt="which port does staging use?"), env=env
    )
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, b"", b"")  # no digest
    stop = hook_process(payload("turn10-after-compact.Stop.1", transcript), env=env)
    assert (stop.returncode, stop.stdout, stop.stderr) == (0, b"", b"")
    start = hook_process(payload("turn9-compact.SessionStart.2"), env=env)
    assert (start.returncode, start.stdout, start.stderr) == (0, b"", b"")
    assert sources(home) == [] and SECRET not in everything_written(home)
    assert not (home / "sessions").exists()  # not even the prompt stash
    # The same turn outside the excluded directories is captured.
    hook_process(payload("turn10-after-compact.Stop.1", transcript), env={"MEMEVO_EXCLUDE": "/elsewhere"})
    assert len(sources(home)) == 1


def test_exclude_is_read_from_config_toml(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('exclude = ["/home/user"]\n', encoding="utf-8")
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH)
        + [user_record("remember that builds need node 20", TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert sources(home) == []


def test_a_spooled_event_keeps_nothing_private_on_disk(home: Path) -> None:
    import json

    from cli.hooks.spool import spool_event

    raw = json.dumps({"event": "turn_end", "user_messages": [f"keep this <private>{SECRET}</private>"]}).encode()
    path = spool_event(home, raw, "turn_end", None, 1_800_000_000.0, lambda *args: None)
    kept = path.read_bytes()
    assert SECRET.encode() not in kept and b"keep this" in kept


def test_an_excluded_directory_leaves_nothing_in_the_spool(home: Path, monkeypatch) -> None:
    import json

    from cli.hooks.spool import excluded_payload

    raw = json.dumps({"event": "turn_end", "cwd": "/home/user/project", "user_messages": ["x"]}).encode()
    assert not excluded_payload(home, raw)
    monkeypatch.setenv("MEMEVO_EXCLUDE", "/home/user")
    assert excluded_payload(home, raw) and not excluded_payload(home, b"not json")
