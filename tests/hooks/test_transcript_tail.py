"""The bounded tail reader never fails and never reads more than its bound."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from cli.hooks.transcripts import tail as tail_module
from cli.hooks.transcripts.claude_code import read_transcript, read_user_records
from cli.hooks.transcripts.tail import read_tail
from tests.hooks.claude_data import (
    NEWER_TRANSCRIPT,
    TRANSCRIPT,
    TURN_PLAIN,
    records,
    records_until,
    user_record,
    write_records,
)


def test_reads_the_real_transcript_whole() -> None:
    tail = read_tail(TRANSCRIPT)
    assert tail.found and not tail.clipped
    assert tail.records == records()


def test_a_partial_last_line_is_left_for_later(tmp_path: Path) -> None:
    written = records_until(TURN_PLAIN)
    path = write_records(tmp_path / "t.jsonl", written, tail='{"type":"user","message":{"role":"user","con')
    tail = read_tail(path)
    assert tail.found and tail.records == written
    # A complete last record without its newline yet is kept.
    path.write_text("".join(json.dumps(r) + "\n" for r in written[:-1]) + json.dumps(written[-1]))
    assert read_tail(path).records == written


def test_missing_empty_and_unnamed_files_read_as_nothing(tmp_path: Path) -> None:
    assert read_tail(tmp_path / "missing.jsonl") == ([], False, False)
    assert read_tail(None) == ([], False, False) and read_tail("") == ([], False, False)
    (tmp_path / "empty.jsonl").write_text("")
    assert read_tail(tmp_path / "empty.jsonl") == ([], True, False)
    transcript = read_transcript(str(tmp_path / "missing.jsonl"))
    assert not transcript.found and transcript.user_turns() == [] and transcript.current_turn(TURN_PLAIN) is None


def test_unreadable_paths_read_as_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert read_tail(tmp_path).found is False  # a directory
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    assert read_tail(fifo).found is False  # never blocks waiting for a writer
    assert time.monotonic() - started < 1
    path = write_records(tmp_path / "t.jsonl", records_until(TURN_PLAIN))

    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tail_module.os, "open", refuse)  # as root, chmod 000 would not stop a read
    assert read_tail(path) == ([], False, False)


def test_a_file_larger_than_the_bound_is_read_from_its_end_only(tmp_path: Path) -> None:
    filler = user_record("filler " + "y" * 5_000, "old-turn")
    last = user_record("the newest message", "new-turn", uuid="last")
    path = write_records(tmp_path / "big.jsonl", [filler] * 400 + [last])
    assert path.stat().st_size > 2_000_000
    tail = read_tail(path, max_bytes=100_000)
    assert tail.clipped and tail.found
    assert tail.records[-1] == last
    assert 0 < len(tail.records) < 25  # only the last ~100 KB were parsed
    # The window never yields half a record, whatever byte it starts at.
    for max_bytes in range(50_000, 50_040):
        assert all(r in (filler, last) for r in read_tail(path, max_bytes=max_bytes).records)
    assert read_tail(path, max_records=3).records == [filler, filler, last]


def test_the_default_bounds(tmp_path: Path) -> None:
    record = user_record("x" * 3_000, "turn")
    path = write_records(tmp_path / "huge.jsonl", [record] * 1_600)  # about 5 MB
    assert path.stat().st_size > tail_module.MAX_TAIL_BYTES
    tail = read_tail(path)
    assert tail.clipped and len(tail.records) < 1_600
    small = write_records(tmp_path / "many.jsonl", [{"type": "x", "i": i} for i in range(5_000)])
    assert tail_module.MAX_RECORDS == 4_096  # the messages of a turn progress capture scans
    assert [r["i"] for r in read_tail(small).records] == list(range(5_000 - 4_096, 5_000))


def test_a_file_still_being_written_is_read_up_to_what_exists(tmp_path: Path) -> None:
    path = tmp_path / "growing.jsonl"
    line = json.dumps(user_record("z" * 200, "turn")) + "\n"
    stop = threading.Event()

    def writer() -> None:
        with open(path, "a", encoding="utf-8") as handle:
            while not stop.is_set():
                for chunk in (line[:50], line[50:]):
                    handle.write(chunk)
                    handle.flush()

    path.write_text("")
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(20):
            tail = read_tail(path)
            assert tail.found and all(r["message"]["content"] == "z" * 200 for r in tail.records)
    finally:
        stop.set()
        thread.join()


def test_keep_parses_only_lines_holding_the_bytes_of_the_last_records(tmp_path: Path) -> None:
    lines = [
        {"type": "user", "n": 0},
        {"type": "assistant", "n": 1},
        {"type": "user", "n": 2},
        {"type": "user", "n": 3},
    ]
    path = tmp_path / "t.jsonl"
    # A damaged line without the bytes is never parsed; the record bound counts every line.
    path.write_text("\n".join([*(json.dumps(r) for r in lines), '{"type": "assistant", broken']) + "\n")
    tail = read_tail(path, keep=b'"user"', max_records=4)
    assert tail.clipped and [r["n"] for r in tail.records] == [2, 3]
    assert [r["n"] for r in read_tail(path, keep=b'"user"').records] == [0, 2, 3]


@pytest.mark.parametrize("transcript", [TRANSCRIPT, NEWER_TRANSCRIPT])
def test_the_prompt_reader_finds_the_same_earlier_turns_as_the_whole_reader(transcript: Path, tmp_path: Path) -> None:
    all_records = records(transcript)
    prompt_ids = list(dict.fromkeys(r["promptId"] for r in all_records if isinstance(r.get("promptId"), str)))
    assert len(prompt_ids) >= 2
    for prompt_id in prompt_ids:
        path = write_records(tmp_path / f"{prompt_id}.jsonl", records_until(prompt_id, transcript))
        for max_bytes in (4096, 64 * 1024, tail_module.MAX_TAIL_BYTES):
            whole = read_transcript(str(path), max_bytes=max_bytes)
            users = read_user_records(str(path), max_bytes=max_bytes)
            assert users.clipped == whole.clipped
            for limit in (1, 5):
                assert users.earlier_user_texts(prompt_id, None, limit) == whole.earlier_user_texts(
                    prompt_id, None, limit
                )


@pytest.mark.parametrize("transcript", [TRANSCRIPT, NEWER_TRANSCRIPT])
@pytest.mark.parametrize("with_ids", [True, False])
def test_the_prompt_reader_parsing_from_the_end_answers_as_the_whole_reader(
    transcript: Path, with_ids: bool, tmp_path: Path
) -> None:
    """It stops parsing as soon as older lines cannot change the answer: with or without
    prompt ids in the transcript, for the current, an unknown or no prompt id, with the
    last typed message as the prompt or not, at every limit."""
    all_records = records(transcript)
    prompt_ids = list(dict.fromkeys(r["promptId"] for r in all_records if isinstance(r.get("promptId"), str)))
    for prompt_id in prompt_ids:
        cut = records_until(prompt_id, transcript)
        if not with_ids:
            cut = [{k: v for k, v in r.items() if k != "promptId"} for r in cut]
        path = write_records(tmp_path / f"{prompt_id}-{with_ids}.jsonl", cut)
        for max_bytes in (4096, tail_module.MAX_TAIL_BYTES):
            whole = read_transcript(str(path), max_bytes=max_bytes)
            typed = [t.text for t in whole.user_turns()]
            for turn_id in (prompt_id, "not-a-prompt-id", None):
                for prompt in (None, typed[-1] if typed else None, "something else"):
                    for limit in (0, 1, 2, 5, 50):
                        users = read_user_records(str(path), max_bytes=max_bytes)
                        assert users.earlier_user_texts(turn_id, prompt, limit) == whole.earlier_user_texts(
                            turn_id, prompt, limit
                        )
            users = read_user_records(str(path), max_bytes=max_bytes)
            assert users.user_turns() == whole.user_turns()
            assert users.records == [r for r in whole.records if r.get("type") == "user"]
