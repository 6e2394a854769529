"""Read the end of a JSON-lines transcript, bounded, without ever failing.

Agents append to their transcripts while hooks run, so the file may be missing, still
growing, or end in half a line. A hook only needs the recent end: at most
:data:`MAX_TAIL_BYTES` from the end and the last :data:`MAX_RECORDS` records are read,
whatever the file's size.
"""

from __future__ import annotations

import json
import os
import stat

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

MAX_TAIL_BYTES = 4 * 1024 * 1024
MAX_RECORDS = 4_096  # a long turn's messages, the scan bound of progress capture


class Tail(tuple):  # type: ignore[type-arg]
    """The last records of a transcript, oldest first (objects only): ``(records, found,
    clipped)``. A plain tuple with named fields, not a ``NamedTuple``, whose class costs each
    hook process about 0.1 ms to define."""

    __slots__ = ()

    def __new__(cls, records: list[dict[str, Any]], found: bool, clipped: bool) -> Tail:
        return tuple.__new__(cls, (records, found, clipped))

    @property
    def records(self) -> list[dict[str, Any]]:
        return self[0]  # type: ignore[no-any-return]

    @property
    def found(self) -> bool:
        """False when the file is missing, unreadable or not a regular file."""
        return self[1]  # type: ignore[no-any-return]

    @property
    def clipped(self) -> bool:
        """True when older content was left unread."""
        return self[2]  # type: ignore[no-any-return]


def read_tail(
    path: str | os.PathLike[str] | None,
    *,
    max_bytes: int = MAX_TAIL_BYTES,
    max_records: int = MAX_RECORDS,
    keep: bytes | None = None,
) -> Tail:
    """The last complete JSON objects of ``path``; lines that are not JSON objects are skipped.

    With ``keep``, of the last ``max_records`` lines only those containing these bytes are
    parsed (a reader that needs one record type skips parsing the others)."""
    lines, found, clipped = read_tail_lines(path, max_bytes=max_bytes, max_records=max_records, keep=keep)
    return Tail([record for line in lines if (record := parse_record(line)) is not None], found, clipped)


def read_tail_lines(
    path: str | os.PathLike[str] | None,
    *,
    max_bytes: int = MAX_TAIL_BYTES,
    max_records: int = MAX_RECORDS,
    keep: bytes | None = None,
) -> tuple[list[bytes], bool, bool]:
    """The lines :func:`read_tail` parses, not parsed yet, and its ``found`` and ``clipped``:
    for a reader that parses from the end only as far as it needs (:func:`parse_record`)."""
    if not path:
        return [], False, False
    try:
        data, clipped = _read_end(os.fspath(path), max_bytes)
    except (OSError, ValueError):
        return [], False, False
    lines = data.split(b"\n")
    if clipped:
        lines = lines[1:]  # the window began inside a record (or just after its newline)
    # The last line has no newline yet if the agent is still writing it; a complete record
    # without a trailing newline still parses and is kept.
    lines = [line for line in lines if line.strip()]
    if len(lines) > max_records:
        lines, clipped = lines[-max_records:], True
    if keep is not None:
        lines = [line for line in lines if keep in line]
    return lines, True, clipped


def parse_record(line: bytes) -> dict[str, Any] | None:
    """One line's JSON object, or ``None`` when the line is not one."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _read_end(path: str, max_bytes: int) -> tuple[bytes, bool]:
    # O_NONBLOCK: a FIFO (or another special file) named as a transcript must not hang the hook.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        size = info.st_size
        # One byte before the window too: when it is a newline, the window starts on a record.
        start = max(size - max_bytes - 1, 0)
        # Only what existed when we looked: a file still growing is read up to that size.
        chunks = []
        remaining = size - start
        offset = start
        while remaining > 0:
            chunk = os.pread(fd, min(remaining, 1 << 20), offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
            remaining -= len(chunk)
        return b"".join(chunks), start > 0
    finally:
        os.close(fd)
