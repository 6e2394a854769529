"""Copies of ``memory.db`` in ``backups/``: made by SQLite, checked by SQLite, found newest
good first.

Two kinds live there: the copy made before a schema migration (``memory-vN-STAMP.db``,
memory_core.store.schema.migrations, kept for good) and the daily copy the worker makes
(``memory-daily-STAMP.db``, the newest :data:`DAILY_KEEP` kept). Every copy is made through
SQLite's online backup API and checked with ``PRAGMA quick_check`` before it counts: a copy of
a damaged database is never kept as a good one. Nothing here opens a database file other than
through SQLite (docs/reliability.md, "SQLite's locks").
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from memory_core.errors import StoreError
from memory_core.store.engines.connection import SIDECAR_SUFFIXES, ensure_private_dir, make_private

BACKUPS_DIR = "backups"
DAILY_PREFIX = "memory-daily-"
DAILY_KEEP = 7
DAILY_EVERY_SECONDS = 24 * 3600.0


class BackupCheck(NamedTuple):
    """One copy in ``backups/`` as SQLite finds it."""

    path: Path
    made_at: float  # the file's modification time
    ok: bool
    schema_version: int | None
    detail: str  # "ok", or the first problem quick_check (or opening it) reported


def backups_dir(home: Path) -> Path:
    return home / BACKUPS_DIR


def list_backups(directory: Path) -> list[tuple[float, Path]]:
    """``(modification time, path)`` of every ``memory-*.db`` in ``directory``, newest first."""
    found = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return []
    for entry in entries:
        if entry.name.startswith("memory-") and entry.name.endswith(".db") and entry.is_file():
            found.append((entry.stat().st_mtime, Path(entry.path)))
    return sorted(found, key=lambda item: (item[0], item[1].name), reverse=True)


def check_backup(path: Path) -> BackupCheck:
    """Open ``path`` read-only (never changing it) and run ``PRAGMA quick_check``; the schema
    version from its ``metadata`` table."""
    try:
        made_at = path.stat().st_mtime
    except OSError as exc:
        return BackupCheck(path, 0.0, False, None, f"cannot read it: {exc.strerror}")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=5)
    except sqlite3.Error as exc:
        return BackupCheck(path, made_at, False, None, str(exc))
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            return BackupCheck(path, made_at, False, None, problems[0])
        row = conn.execute("SELECT value FROM metadata WHERE key = 'schema_version'").fetchone()
        if row is None or not str(row[0]).isdigit():
            return BackupCheck(path, made_at, False, None, "no memevo schema marker")
        return BackupCheck(path, made_at, True, int(row[0]), "ok")
    except sqlite3.Error as exc:
        return BackupCheck(path, made_at, False, None, str(exc))
    finally:
        conn.close()


def newest_good_backup(directory: Path, newest_version: int) -> BackupCheck | None:
    """The newest copy that passes its check at a schema version this build can open."""
    for _, path in list_backups(directory):
        checked = check_backup(path)
        if checked.ok and checked.schema_version is not None and checked.schema_version <= newest_version:
            return checked
    return None


def daily_backup_due(newest_daily_at: float | None, now: float) -> bool:
    """A daily copy is due when none was made in the last :data:`DAILY_EVERY_SECONDS`."""
    return newest_daily_at is None or now - newest_daily_at >= DAILY_EVERY_SECONDS or newest_daily_at > now + 60


def newest_daily_at(directory: Path) -> float | None:
    dailies = [made for made, path in list_backups(directory) if path.name.startswith(DAILY_PREFIX)]
    return dailies[0] if dailies else None


def copy_into(conn: sqlite3.Connection, target: Path) -> None:
    """A new private file ``target`` holding ``conn``'s database, by SQLite's backup API (one
    consistent snapshot; writers in other processes go on meanwhile), in rollback-journal
    mode so the copy is one self-contained file that reading it never adds ``-wal``/``-shm`` to."""
    ensure_private_dir(target.parent)
    dest = sqlite3.connect(target, isolation_level=None)  # SQLite creates it, inside the private directory
    try:
        make_private(target)
        conn.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")
    finally:
        dest.close()


def make_daily_backup(conn: sqlite3.Connection, home: Path, now: float) -> Path | None:
    """The worker's daily copy of the live database (``None`` when one is not due yet), checked
    before it counts; the oldest daily copies beyond :data:`DAILY_KEEP` are removed.

    Raises :class:`StoreError` when the copy fails its check: the live database is then damaged
    and the newest good copy is kept as it is."""
    directory = backups_dir(home)
    if not daily_backup_due(newest_daily_at(directory), now):
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    target = directory / f"{DAILY_PREFIX}{stamp}.db"
    partial = directory / f".{DAILY_PREFIX}{stamp}.partial"
    for leftover in (partial, *(Path(f"{partial}{suffix}") for suffix in SIDECAR_SUFFIXES)):
        leftover.unlink(missing_ok=True)
    copy_into(conn, partial)
    checked = check_backup(partial)
    if not checked.ok:
        partial.unlink(missing_ok=True)
        raise StoreError(
            f"the daily backup of memory.db failed its check ({checked.detail}): the database may be damaged; "
            "run `memevo doctor`"
        )
    os.replace(partial, target)
    os.utime(target, (now, now))
    prune_dailies(directory)
    return target


def prune_dailies(directory: Path, keep: int = DAILY_KEEP) -> list[Path]:
    """Remove the daily copies beyond the newest ``keep``; migration copies are never removed."""
    dailies = [path for _, path in list_backups(directory) if path.name.startswith(DAILY_PREFIX)]
    removed = []
    for path in dailies[keep:]:
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed
