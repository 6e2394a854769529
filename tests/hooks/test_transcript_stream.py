"""Reading a transcript by lines from either end in bounded memory (cli/hooks/transcripts/stream.py)."""

from __future__ import annotations

import json
from pathlib import Path

from cli.hooks.transcripts import stream
from cli.hooks.transcripts.stream import backward_lines, forward_lines, forward_records, open_transcript


def test_lines_from_the_end_and_from_an_offset_match_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [json.dumps({"n": i, "pad": "x" * (i * 37 % 500)}).encode() for i in range(400)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    source = open_transcript(path)
    assert source is not None
    with source:
        backward = [(offset, line) for offset, line in backward_lines(source, block=97) if line]
        assert [line for _, line in backward] == lines[::-1]
        offset = backward[10][0]  # the 11th line from the end
        assert [r["n"] for r in forward_records(source, offset, block=89)] == list(range(389, 400))


def test_a_line_too_long_to_hold_is_skipped_and_counted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(stream, "MAX_RECORD_BYTES", 1000)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"big": "' + b"y" * 5000 + b'"}\n{"b": 2}\n')
    source = open_transcript(path)
    assert source is not None
    with source:
        assert [line for _, line in backward_lines(source, block=64)] == [b"", b'{"b": 2}', None, b'{"a": 1}']
        assert list(forward_lines(source, 0, block=64)) == [b'{"a": 1}', None, b'{"b": 2}']
        assert source.skipped == 2


def test_a_file_still_being_written_is_read_up_to_its_size_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2')
    source = open_transcript(path)
    assert source is not None
    with source:
        with path.open("ab") as handle:
            handle.write(b'}\n{"c": 3}\n')
        assert list(forward_records(source, 0)) == [{"a": 1}]  # the half-written line does not parse


def test_no_transcript_is_none(tmp_path: Path) -> None:
    assert open_transcript(None) is None
    assert open_transcript(tmp_path / "missing.jsonl") is None
    assert open_transcript(tmp_path) is None  # a directory
