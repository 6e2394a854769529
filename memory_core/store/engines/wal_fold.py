"""Fold a SQLite database's WAL into the database and truncate it, in a process of its own.

    python -P -m memory_core.store.engines.wal_fold PATH [PATIENCE_SECONDS]

What a hook starts when it found ``memory.db``'s (or ``queue.db``'s) WAL past its bound
(:func:`memory_core.store.engines.close_checkpoint.start_wanted_folds`), so the copy and the
checkpoint's disk syncs are paid by no agent's turn. One fold per database runs at a time:
it holds a lock on the database's marker in ``cache/`` (:func:`close_checkpoint.fold_marker`),
and a second process finding it held leaves at once. The database is opened as it is (never
created, never switched to another journal mode) and checkpointed with
``wal_checkpoint(TRUNCATE)`` waiting for no one: while a reader or writer elsewhere makes that
a no-op, the process tries again every :data:`RETRY_SECONDS` for :data:`PATIENCE_SECONDS`,
then leaves it to the next hook or the worker's periodic checkpoint. It ends without closing
its connection, which would checkpoint again or delete the WAL (the next writer would then
create it and sync the directory). Exit status 0 when the WAL was emptied, already small or
being folded by another process, 1 when the fold was deferred or failed (no one reads it: its
streams are closed).
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

RETRY_SECONDS = 0.1
PATIENCE_SECONDS = 5.0
_held: list[Any] = []  # the connection and the marker's descriptor, open until the process ends


def fold(path: str, patience: float = PATIENCE_SECONDS) -> bool:
    """Checkpoint and truncate ``path``'s WAL, alone (the marker's lock) and again while others
    keep it from folding; True when it is empty afterwards, was never there or another process
    is folding it. The connection and the lock are held (:data:`_held`) for the process's
    end."""
    import sqlite3
    from urllib.parse import quote

    from memory_core.store.engines.close_checkpoint import open_fold_marker, skip_checkpoint_on_close, truncate_wal

    if not os.path.exists(path) or not os.path.exists(path + "-wal"):
        return True  # nothing to fold, and no marker made beside a database that is not there
    marker = open_fold_marker(path)
    _held.append(marker)  # the lock lasts as long as the descriptor
    try:
        os.lockf(marker, os.F_TLOCK, 0)
    except OSError:
        return True  # another fold of this database runs
    absolute = os.path.abspath(path)
    conn = sqlite3.connect(f"file://{quote(absolute)}?mode=rw", uri=True, isolation_level=None)
    _held.append(conn)
    skip_checkpoint_on_close(conn, absolute)  # should it be closed after all: no fold, no WAL removal
    deadline = time.monotonic() + patience
    while not truncate_wal(conn):
        if time.monotonic() >= deadline:
            return False
        time.sleep(RETRY_SECONDS)
    return True


def main(argv: list[str]) -> int:
    """``PATH [PATIENCE_SECONDS]``: 0 when folded (or nothing to fold), 1 when not, 2 on bad
    arguments."""
    if len(argv) not in (1, 2):
        return 2
    try:
        return 0 if fold(argv[0], *(float(value) for value in argv[1:])) else 1
    except Exception:
        return 1


def run(argv: list[str]) -> None:
    """The fold process: :func:`main`, then the end without closing anything (a close would
    checkpoint again or delete the WAL) and without the cyclic collector, which would close
    an unreachable connection on its own."""
    import gc

    gc.disable()
    code = main(argv)
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    run(sys.argv[1:])
