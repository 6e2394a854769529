"""A bounded, private JSON-lines log: the injection and learning logs' shared file handling.

An entry is one line appended under an exclusive lock (a sibling lock file), the file is
kept 0600, and past its bound the oldest lines are dropped until the newest fit in three
quarters of it. Reading gives the last entries, newest first, skipping lines that are not
JSON. Loaded by the per-turn hooks: the standard library only, and no ``typing``.

The lock is a POSIX record lock on the lock file (:func:`os.lockf`) taken under a lock of
this process: a record lock excludes other processes but not the threads of one (``memevo
serve`` appends from several), and it is released when the process closes *any* descriptor of
that file, which only :func:`append` opens, under the process's lock. Not ``fcntl.flock``:
loading :mod:`fcntl` (a shared library) costs every hook that logs about 0.2 ms.
"""

from __future__ import annotations

import _thread
import json
import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

_in_process = _thread.allocate_lock()  # the threads of this process, one append at a time


def _new_lock_after_fork() -> None:
    """A child forked while another thread held the lock gets a free one (that thread is not
    in the child to release it)."""
    global _in_process
    _in_process = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


def encode(entry: dict[str, Any], max_line_bytes: int) -> bytes | None:
    """The entry as one line, or ``None`` when it would be longer than ``max_line_bytes``."""
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return line if len(line) <= max_line_bytes else None


def append(path: Path, lock: Path, line: bytes, *, max_bytes: int, max_lines: int | None = None) -> None:
    """Append ``line`` under ``lock``, then trim when past ``max_bytes`` (or ``max_lines``)."""
    with _in_process:
        lock_fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock_whole_file(lock_fd)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line + b"\n")
                status = os.fstat(fd)
                if status.st_mode & 0o077:
                    os.fchmod(fd, 0o600)
            finally:
                os.close(fd)
            if status.st_size > max_bytes or (max_lines is not None and _line_count(path) > max_lines):
                _trim(path, max_bytes, max_lines)
        finally:
            os.close(lock_fd)  # closing releases the lock


def _lock_whole_file(fd: int) -> None:
    """Wait for the record lock on the whole file; a signal handled meanwhile (a worker's) does
    not end the wait, as it does not for ``fcntl.flock`` (:pep:`475`)."""
    while True:
        try:
            os.lockf(fd, os.F_LOCK, 0)
            return
        except InterruptedError:
            continue


def _line_count(path: Path) -> int:
    with open(path, "rb") as handle:
        data = handle.read()
    return data.count(b"\n") + (not data.endswith(b"\n") and bool(data))  # as iterating its lines


def _trim(path: Path, max_bytes: int, max_lines: int | None) -> None:
    """Keep the newest lines that fit in three quarters of the bounds (called under the lock):
    room for a quarter more before the next trim, so not every append rewrites the file."""
    lines = path.read_bytes().splitlines()
    if max_lines is not None:
        lines = lines[-max(1, max_lines * 3 // 4) :]
    kept: list[bytes] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > max_bytes * 3 // 4:
            break
        kept.append(line)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, b"".join(line + b"\n" for line in reversed(kept)))
    finally:
        os.close(fd)
    os.replace(temporary, path)


def read_last(path: Path, limit: int, keep: Callable[[Any], bool]) -> list[dict[str, Any]]:
    """The last ``limit`` entries ``keep`` accepts, newest first (unreadable lines skipped)."""
    if limit <= 0 or not path.is_file():
        return []
    entries: list[dict[str, Any]] = []
    for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if keep(value):
            entries.append(value)
            if len(entries) == limit:
                break
    return entries
