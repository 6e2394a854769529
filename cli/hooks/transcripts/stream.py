"""Read one turn out of a transcript of any size, in bounded memory.

The window of :mod:`.tail` (the last 4 MB) is enough for what a prompt needs, but not for
the end of a long agentic turn: fifty reads of large files push the turn's first record,
and with it its early commit or test run, out of any fixed window. A turn is read instead
in two passes over the file, neither of which loads it:

1. :func:`backward_lines` walks the lines from the end, a block at a time, until the
   agent's reader has seen the turn's first record (its prompt id, its turn id, the
   prompt the user typed);
2. :func:`forward_records` streams the records from that offset to the size the file had
   when the hook looked, one parsed record at a time.

Memory is bounded by one block and one record: a line longer than :data:`MAX_RECORD_BYTES`
is skipped without being held (and counted, so the learning log can say so). What the
readers keep of the streamed records is bounded by :class:`~.keeper.KeptOperations`.
"""

from __future__ import annotations

import os
import stat

from cli.hooks.transcripts.tail import MAX_TAIL_BYTES, parse_record

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    # What a reader says of one line on the way back: ``None`` for a line that tells nothing of
    # turns, else whether the agent names turns by id in it, the id it names, and a function
    # giving the text the user typed in it (``None`` if none).
    TurnMark = tuple[bool, str | None, Callable[[], str | None]]

BLOCK_BYTES = 1 << 20
MAX_RECORD_BYTES = 16 * 1024 * 1024  # no agent writes a record near this; a longer line is skipped
# A turn-end hook run again for an older turn finds it behind later turns within this many
# bytes of the end (the window the whole transcript was read in before, :mod:`.tail`); beyond
# them the turn is taken as not written yet, so a missing turn never costs a scan of the file.
LATER_TURNS_BYTES = MAX_TAIL_BYTES


class OpenTranscript:
    """A transcript opened for reading, with its size when it was opened (what is appended
    later is the next turn's). ``skipped`` counts lines too long to read."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size
        self.skipped = 0

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> OpenTranscript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_transcript(path: str | os.PathLike[str] | None) -> OpenTranscript | None:
    """The transcript at ``path``, or ``None`` when it is missing, unreadable or not a file."""
    if not path:
        return None
    try:
        # O_NONBLOCK: a FIFO (or another special file) named as a transcript must not hang the hook.
        fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return None
    return OpenTranscript(fd, info.st_size)


def backward_lines(source: OpenTranscript, *, block: int = BLOCK_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """``(offset, line)`` for every line, the last first; ``line`` is ``None`` for a line
    longer than :data:`MAX_RECORD_BYTES` (skipped unread, counted in ``source.skipped``)."""
    position = source.size
    pending = b""  # the start of the file's unread part ends with this partial line
    skipping = False
    while position > 0:
        start = max(position - block, 0)
        chunk = _pread(source.fd, position - start, start)
        if chunk is None:
            return
        position = start
        data = chunk if skipping else chunk + pending
        cut = len(data)
        newline = data.rfind(b"\n", 0, cut)
        while newline >= 0:
            if skipping:
                skipping = False
                source.skipped += 1
                yield position + newline + 1, None
            else:
                yield position + newline + 1, data[newline + 1 : cut]
            cut = newline
            newline = data.rfind(b"\n", 0, cut)
        pending = b"" if skipping else data[:cut]
        if len(pending) > MAX_RECORD_BYTES:
            skipping, pending = True, b""
    if skipping:
        source.skipped += 1
        yield 0, None
    elif pending:
        yield 0, pending


def turn_start_offset(
    source: OpenTranscript,
    wanted: str | None,
    is_prompt: Callable[[str], bool] | None,
    mark: Callable[[bytes], TurnMark | None],
) -> tuple[int, bool] | None:
    """Where turn ``wanted`` starts and whether turn ids delimit it, read from the end with
    :func:`backward_lines`; ``mark`` is the agent's reading of a line (:data:`TurnMark`).

    The newest line that tells anything decides: where the agent names turns (and a turn is
    wanted), the start is the oldest line naming ``wanted`` before a line naming an earlier
    turn; otherwise it is the last message the user typed, if ``is_prompt`` accepts it."""
    by_id: bool | None = None
    found: int | None = None
    for offset, line in backward_lines(source):
        marked = None if line is None else mark(line)
        if marked is None:
            continue
        names_ids, own, text_of = marked
        if by_id is None:
            by_id = wanted is not None and names_ids
        if not by_id:
            text = text_of()
            if text is None:
                continue
            return (offset, False) if is_prompt is None or is_prompt(text) else None
        if own == wanted:
            found = offset
        elif own is not None:
            if found is not None:
                break  # an earlier turn: the start is the oldest record of ours
            if source.size - offset > LATER_TURNS_BYTES:
                break
    return (found, True) if found is not None else None


def forward_records(source: OpenTranscript, offset: int, *, block: int = BLOCK_BYTES) -> Iterator[dict[str, Any]]:
    """The JSON objects of the lines from ``offset`` (a line's start) to the size seen at
    opening, oldest first; other lines are skipped, as by :func:`.tail.read_tail`."""
    for line in forward_lines(source, offset, block=block):
        if line is not None and (record := parse_record(line)) is not None:
            yield record


def forward_lines(source: OpenTranscript, offset: int, *, block: int = BLOCK_BYTES) -> Iterator[bytes | None]:
    """The lines from ``offset`` to the size seen at opening; ``None`` for one too long to read."""
    position = offset
    pending = b""
    skipping = False
    while position < source.size:
        chunk = _pread(source.fd, min(block, source.size - position), position)
        if not chunk:
            break
        position += len(chunk)
        start = 0
        newline = chunk.find(b"\n")
        while newline >= 0:
            if skipping:
                skipping = False
                source.skipped += 1
                yield None
            else:
                line = pending + chunk[start:newline] if pending else chunk[start:newline]
                pending = b""
                if line.strip():
                    yield line
            start = newline + 1
            newline = chunk.find(b"\n", start)
        if not skipping:
            pending += chunk[start:]
            if len(pending) > MAX_RECORD_BYTES:
                skipping, pending = True, b""
    if skipping:
        source.skipped += 1
        yield None
    elif pending.strip():
        yield pending  # the last record, perhaps still being written (it then does not parse)


def _pread(fd: int, size: int, offset: int) -> bytes | None:
    try:
        return os.pread(fd, size, offset)
    except OSError:
        return None
