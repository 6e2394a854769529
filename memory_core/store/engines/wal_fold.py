"""Fold a SQLite database's WAL into the database and truncate it, in a process of its own.

    python -P -m memory_core.store.engines.wal_fold PATH

What a hook starts when it found ``memory.db``'s (or ``queue.db``'s) WAL past its bound
(:func:`memory_core.store.engines.close_checkpoint.start_wanted_folds`), so the copy and the
checkpoint's disk syncs are paid by no agent's turn. The database is opened as it is (never
created, never switched to another journal mode) and checkpointed with
``wal_checkpoint(TRUNCATE)`` waiting for no one: a reader or writer elsewhere makes it a
no-op, and the next hook, or the worker's periodic checkpoint, asks again. The process then
ends without closing its connection, which would checkpoint again or delete the WAL (the next
writer would then create it and sync the directory). Exit status 0 when the WAL was emptied
or already small, 1 when the fold was deferred or failed (no one reads it: its streams are
closed).
"""

from __future__ import annotations

import os
import sys


def fold(path: str) -> bool:
    """Checkpoint and truncate ``path``'s WAL; True when it is empty afterwards or was never
    there."""
    import sqlite3
    from urllib.parse import quote

    from memory_core.store.engines.close_checkpoint import truncate_wal

    if not os.path.exists(path) or not os.path.exists(path + "-wal"):
        return True
    conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=rw", uri=True, isolation_level=None)
    return truncate_wal(conn)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        return 2
    try:
        return 0 if fold(argv[0]) else 1
    except Exception:
        return 1


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # the connection stays open to the end: no checkpoint or WAL removal on close
