"""Putting a copy from ``backups/`` back in place of a damaged ``memory.db``.

The damaged files are kept aside first, byte for byte (``damaged/memory-STAMP.db`` and its
``-wal``), before this process opens the database at all: reading them then drops no lock of
this process's, since it holds none (docs/reliability.md, "SQLite's locks"). The copy goes
back through SQLite's backup API into the live database, the way SQLite itself restores a
database other processes may have open: their connections see the restored content at their
next transaction. Only when SQLite cannot write the damaged file at all is it replaced as a
file, and only when no other process has it open.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from memory_core.errors import StoreError, UsageError
from memory_core.files.durable_files import sync_dir
from memory_core.store.engines.connection import BUSY_TIMEOUT_MS, ensure_private_dir, make_private, secure_sidecars
from memory_core.store.safekeeping.backups import backups_dir, check_backup, copy_into

DAMAGED_DIR = "damaged"


class Restored(NamedTuple):
    backup: Path
    schema_version: int
    kept_aside: list[Path]  # the damaged files as they were
    how: str  # "online" (through SQLite into the live file) or "replaced" (no process had it open)


def resolve_backup(home: Path, given: str) -> Path:
    """``given`` as a path, else as a name in ``backups/``."""
    path = Path(given).expanduser()
    if path.is_file():
        return path
    named = backups_dir(home) / given
    if named.is_file():
        return named
    raise UsageError(
        f"no backup {given!r}: give a path, or a name that `memevo restore` lists from {backups_dir(home)}"
    )


def keep_aside(db_path: Path, now: float) -> list[Path]:
    """Byte copies of ``memory.db`` and its ``-wal`` in ``damaged/`` (private). Call before
    this process opens the database."""
    directory = ensure_private_dir(db_path.parent / DAMAGED_DIR)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    kept = []
    for suffix in ("", "-wal"):
        source = Path(f"{db_path}{suffix}")
        if not source.exists():
            continue
        target = directory / f"memory-{stamp}.db{suffix}"
        shutil.copyfile(source, target)
        make_private(target)
        kept.append(target)
    return kept


def restore_backup(home: Path, db_path: Path, given: str, newest_version: int, now: float) -> Restored:
    """Check the copy ``given``, keep the damaged database aside, put the copy back."""
    backup = resolve_backup(home, given)
    checked = check_backup(backup)
    if not checked.ok or checked.schema_version is None:
        raise UsageError(f"{backup} fails its own check ({checked.detail}); choose another copy")
    if checked.schema_version > newest_version:
        raise UsageError(
            f"{backup} is at schema version {checked.schema_version}, newer than this build's {newest_version}; "
            "upgrade memevo first"
        )
    kept = keep_aside(db_path, now) if db_path.exists() else []
    source = sqlite3.connect(f"file:{backup}?mode=ro", uri=True, isolation_level=None)
    try:
        try:
            _restore_online(source, db_path)
            how = "online"
        except sqlite3.DatabaseError:
            _replace_file(source, db_path)
            how = "replaced"
    finally:
        source.close()
    secure_sidecars(db_path)
    return Restored(backup, checked.schema_version, kept, how)


def _restore_online(source: sqlite3.Connection, db_path: Path) -> None:
    ensure_private_dir(db_path.parent)
    live = sqlite3.connect(db_path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        make_private(db_path)
        live.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        source.backup(live)
        live.execute("PRAGMA journal_mode=WAL")
        problems = [str(row[0]) for row in live.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"the restored database fails its check: {problems[0]}")
    finally:
        live.close()


def _replace_file(source: sqlite3.Connection, db_path: Path) -> None:
    """SQLite could not write the damaged file: swap in a new file holding the copy, after
    making sure no other process has the old one (or its ``-shm``) open."""
    for path in (db_path, Path(f"{db_path}-shm")):
        if _open_elsewhere(path):
            raise StoreError(
                "memory.db is too damaged to restore in place and another process has it open; stop the worker, "
                "`memevo serve` and `memevo ui` (agents' hooks fail open meanwhile), then run `memevo restore` again"
            )
    fresh = db_path.with_name(f".{db_path.name}.restoring")
    for leftover in (fresh, *(Path(f"{fresh}{suffix}") for suffix in ("-wal", "-shm", "-journal"))):
        leftover.unlink(missing_ok=True)
    copy_into(source, fresh)
    for suffix in ("-wal", "-shm"):  # the damaged database's: kept aside, and they must not meet the copy
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    os.replace(fresh, db_path)
    sync_dir(db_path.parent)


def _open_elsewhere(path: Path) -> bool:
    """Whether another process holds a SQLite lock on ``path`` (an open connection holds one
    on the database file and on the ``-shm``). This process must have no connection to it."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 0, 0)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 0, 0)
        return False
    finally:
        os.close(fd)
