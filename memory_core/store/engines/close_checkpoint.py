"""Closing a SQLite connection without a checkpoint.

By default the last connection to a WAL database to close checkpoints it: the WAL synced
twice, the database file synced, the WAL deleted, and the next writer creates it again and
syncs the directory. A hook process closes its connection on every capture, and is usually
the last one, so each capture paid five disk syncs per database for work that promises the
person nothing: the commit had already made the capture durable in the WAL. With
``SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`` a close leaves the WAL as it is; SQLite's automatic
checkpoint, the next connection to open a WAL past its bound (:func:`fold_large_wal`) and the
worker's periodic checkpoint fold it into the database (docs/reliability.md, "What is synced
when"). A hook never folds on its own path: it leaves the fold to a process of its own, started
as the hook ends (:func:`start_wanted_folds`, :mod:`memory_core.store.engines.wal_fold`).

Python 3.12 offers the setting as :meth:`sqlite3.Connection.setconfig`. On 3.11 it is set
through the SQLite library the interpreter's ``_sqlite3`` module uses, on the connection's
own handle, found where CPython 3.11 keeps it and checked against the database's file name
before use; anywhere that cannot be checked nothing is set and closes checkpoint as before.

A hook process, which ends with :func:`os._exit` once its work is done (cli/main.py), needs
neither: :func:`keep_connections_until_exit` makes its connections of a class whose ``close``
keeps them open, and the process's end releases their files and locks without a checkpoint,
as SQLite is built to survive (what a killed hook does anyway). That saves the 3.11 call
through ``_ctypes`` (about 0.5 ms of every hook process), and a second connection in the same
process finds the WAL's index valid instead of reading the WAL again. A hook that ends any
other way (a failure) closes them as the interpreter is torn down, with the checkpoint.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (hooks load this)
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

NO_CKPT_ON_CLOSE = 1006  # SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (sqlite3.h, SQLite 3.16+)
JOURNAL_SIZE_LIMIT = 8 * 1024 * 1024  # what a WAL reset truncates the file to, at most
# A WAL past this size is folded in and truncated by the next connection that opens it.
# Needed because a process that opens the database when no other has it open rebuilds the
# WAL's index from the file and forgets what earlier checkpoints copied: SQLite's automatic
# checkpoint then copies again and again but never starts the WAL over, and a store whose
# connections all close without a checkpoint (hooks, short commands) grew its WAL past
# 100 MB in 6,000 captures. Every ~2 MB (a few hundred captures) one opening connection pays
# the checkpoint's syncs instead.
WAL_TRUNCATE_BYTES = 2 * 1024 * 1024
# memory.db's bound in a hook, smaller: every connection that finds no other open (a hook's,
# on every turn) reads the whole WAL to rebuild its index, about 0.4 µs per KB past the first
# few hundred KB (docs/hooks.md, "Cost"), and a hook leaves the fold to a process of its own.
STORE_WAL_FOLD_BYTES = 512 * 1024
# A hook starts no fold process while one of the same database runs (it holds a lock on its
# marker in cache/), nor within this many seconds of the last start (the time a new process
# takes to take that lock).
FOLD_START_SECONDS = 1.0

_library: _SqliteLibrary | None = None
_keeping = False  # set by keep_connections_until_exit()
_kept_class: type | None = None  # made on first use (the caller has sqlite3 loaded by then)
_kept: list[Any] = []  # the connections "closed" in this process, open until it ends
_folds_wanted: list[str] = []  # databases whose WAL a hook found past its bound


def keep_connections_until_exit() -> None:
    """From now on connections are made (:func:`connection_class`) to stay open until the
    process ends; only for a process that leaves with :func:`os._exit` (and calls
    :func:`release_kept_connections` on any other way out). Loads nothing: a hook that opens
    no database pays nothing for it."""
    global _keeping
    _keeping = True


def connection_class() -> type | None:
    """The ``factory`` for :func:`sqlite3.connect`: the keeping class in a hook process, else
    ``None`` (the default class)."""
    global _kept_class
    if not _keeping:
        return None
    if _kept_class is None:
        import sqlite3

        class KeptConnection(sqlite3.Connection):
            """A connection whose ``close`` leaves it open for the process's end."""

            kept_path: str | None = None  # the database's path, once skip_checkpoint_on_close() saw it

            def close(self) -> None:
                if self.in_transaction:  # as a real close: what was not committed is not kept
                    self.rollback()
                if self not in _kept:
                    _kept.append(self)

        _kept_class = KeptConnection
    return _kept_class


def release_kept_connections() -> int:
    """Close the kept connections for real, each set first to close without a checkpoint as
    any other connection is (a hook leaving without :func:`os._exit`: a failure, a command
    line left to click), so not even then does a hook's close fold the WAL or touch a database
    it refused; returns how many were closed."""
    closed = 0
    while _kept:
        conn = _kept.pop()
        try:
            if conn.kept_path is not None:
                _skip_checkpoint(conn, conn.kept_path)
        except Exception:
            pass
        try:
            import sqlite3

            sqlite3.Connection.close(conn)  # the real close, past KeptConnection's
            closed += 1
        except Exception:
            pass
    return closed


def skip_checkpoint_on_close(conn: sqlite3.Connection, path: str) -> bool:
    """Make closing ``conn`` (a connection to ``path``) leave the WAL unchecked-pointed; True
    when set. Also bounds the WAL file a checkpoint leaves behind."""
    conn.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
    if _kept_class is not None and isinstance(conn, _kept_class):
        setattr(conn, "kept_path", path)  # noqa: B010 (an attribute of the subclass only)
        return True  # not closed before the process ends (release_kept_connections() else)
    return _skip_checkpoint(conn, path)


def _skip_checkpoint(conn: sqlite3.Connection, path: str) -> bool:
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:  # Python 3.12+
        setconfig(NO_CKPT_ON_CLOSE, True)
        return True
    return _db_config_311(conn, path)


def fold_large_wal(conn: sqlite3.Connection, path: str, hook_limit: int | None = None) -> bool:
    """When ``path``'s WAL is past :data:`WAL_TRUNCATE_BYTES`, checkpoint it and truncate it,
    without waiting: a reader elsewhere makes it a no-op until a later connection (and the
    worker's periodic checkpoint) finds none. True when the WAL was emptied.

    In a hook process (:func:`keep_connections_until_exit`), a WAL past ``hook_limit`` (when
    given) is noted for :func:`start_wanted_folds` instead, so the hook pays neither the copy
    nor the checkpoint's disk syncs; past :data:`WAL_TRUNCATE_BYTES` the hook still folds it
    itself, which happens only when those folds cannot run (no process could be started, or
    its children are killed with it): the WAL stays bounded either way."""
    try:
        size = os.stat(path + "-wal").st_size
    except OSError:
        return False
    if _keeping and hook_limit is not None and size > hook_limit and path not in _folds_wanted:
        _folds_wanted.append(path)
    if size <= WAL_TRUNCATE_BYTES:
        return False
    return truncate_wal(conn)


def start_wanted_folds(now: float) -> int:
    """Start a fold process (:mod:`memory_core.store.engines.wal_fold`) for each database this
    hook found past its bound, detached (its own session, no standard streams: the agent waits
    for no part of it), unless one of that database runs or started in the last
    :data:`FOLD_START_SECONDS`; returns how many were started. Never raises: a fold not started
    is asked for by the next hook, and the worker folds once a minute."""
    started = 0
    while _folds_wanted:
        path = _folds_wanted.pop()
        try:
            if _claim_fold(path, now):
                _spawn_fold(path)
                started += 1
        except Exception:
            pass
    return started


def fold_marker(path: str) -> str:
    """The file in the state dir's ``cache/`` that a fold of database ``path`` holds a lock on
    while it runs, and whose modification time is when a hook last started one."""
    return os.path.join(os.path.dirname(path), "cache", "wal-fold." + os.path.basename(path))


def open_fold_marker(path: str) -> int:
    """A descriptor of ``path``'s fold marker, created 0600 in a 0700 ``cache/`` if missing."""
    marker = fold_marker(path)
    directory = os.path.dirname(marker)
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if os.stat(directory).st_mode & 0o077:
            os.chmod(directory, 0o700)
    return os.open(marker, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)


def _claim_fold(path: str, now: float) -> bool:
    """Whether a fold of ``path`` should start now: none started in the last
    :data:`FOLD_START_SECONDS` and none holding the marker's lock. If so, the marker says one
    starts now. (The marker is opened only here and by the fold process: closing it drops no
    lock of this process that matters, record locks being per process and file.)"""
    try:
        if abs(now - os.stat(fold_marker(path)).st_mtime) < FOLD_START_SECONDS:  # a clock set back: no wait
            return False
    except FileNotFoundError:
        pass
    fd = open_fold_marker(path)
    try:
        try:
            os.lockf(fd, os.F_TEST, 0)
        except OSError:  # held: a fold of this database is running
            return False
        os.utime(fd, (now, now))
    finally:
        os.close(fd)
    return True


def _spawn_fold(path: str) -> None:
    """``memory_core.store.engines.wal_fold`` for ``path`` in a new session, its standard
    streams on ``/dev/null`` and no other descriptor inherited (an agent waiting for a pipe it
    gave the hook to close must not wait for the fold), importing this very memevo (its
    package root first on the path; ``-P``: the hook's working directory, the person's
    project, is not on it), with the interpreter flags the hook itself runs with."""
    devnull = os.devnull
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    flags = [flag for flag, on in (("-E", sys.flags.ignore_environment), ("-s", sys.flags.no_user_site)) if on]
    actions: list[tuple[Any, ...]] = [
        (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
    ]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited_descriptors()]
    os.posix_spawn(
        sys.executable,
        [sys.executable, *flags, "-P", "-c", _FOLD_MAIN, root, path],
        os.environ,
        file_actions=actions,
        setsid=True,
    )


# The fold process's command: this memevo's package root first on the path, then its main.
_FOLD_MAIN = (
    "import sys; sys.path.insert(0, sys.argv[1]); from memory_core.store.engines.wal_fold import run; run(sys.argv[2:])"
)


def _inherited_descriptors() -> list[int]:
    """This process's descriptors above 2 that a new program would inherit (not close-on-exec:
    SQLite's and Python's own files are, so they are not touched)."""
    found: list[int] = []
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(listing)
        except OSError:
            continue
        for name in names:
            fd = int(name) if name.isdigit() else -1
            if fd > 2:
                try:
                    if os.get_inheritable(fd):
                        found.append(fd)
                except OSError:  # the listing's own descriptor, closed by now
                    pass
        break
    return sorted(found)


def truncate_wal(conn: sqlite3.Connection) -> bool:
    """``PRAGMA wal_checkpoint(TRUNCATE)`` with no busy wait; True when every frame was
    copied and the WAL emptied."""
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout=0")
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except Exception:  # locked by a writer elsewhere: a later connection folds it
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout={int(timeout)}")
    return busy == 0


def _db_config_311(conn: sqlite3.Connection, path: str) -> bool:
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or hasattr(sys, "gettotalrefcount"):
        return False
    global _library
    if _library is None:
        _library = _SqliteLibrary()
    library = _library
    # CPython 3.11's pysqlite_Connection: PyObject_HEAD, then the sqlite3 pointer.
    handle = library.pointer.from_address(id(conn) + 2 * library.pointer_size).value
    if not handle:
        return False
    name = library.db_filename(handle, b"main")
    if name is None or os.path.realpath(os.fsdecode(name)) != os.path.realpath(path):
        return False
    done = library.integer(-1)
    result = library.db_config(library.pointer(handle), NO_CKPT_ON_CLOSE, library.integer(1), library.byref(done))
    return result == 0 and done.value == 1


class _SqliteLibrary:
    """The two SQLite functions :func:`_db_config_311` calls, from the library the interpreter's
    ``_sqlite3`` module links, declared with :mod:`_ctypes` itself: the same calls as through
    :mod:`ctypes`, whose package (with ``struct``) costs a hook process about 1-2 ms to import
    for three C types and a library handle (docs/hooks.md, "Cost")."""

    def __init__(self) -> None:
        import _ctypes
        import _sqlite3

        class c_int(_ctypes._SimpleCData):  # type: ignore[misc,name-defined]  # ctypes.c_int
            _type_ = "i"

        class c_void_p(_ctypes._SimpleCData):  # type: ignore[misc,name-defined]  # ctypes.c_void_p
            _type_ = "P"

        class c_char_p(_ctypes._SimpleCData):  # type: ignore[misc,name-defined]  # ctypes.c_char_p
            _type_ = "z"

        class Function(_ctypes.CFuncPtr):  # type: ignore[misc,name-defined]  # a ctypes.CDLL's functions
            _flags_ = _ctypes.FUNCFLAG_CDECL
            _restype_ = c_int

        # Its symbols include the SQLite it links, as ctypes.CDLL(_sqlite3.__file__) finds them.
        self._handle = _ctypes.dlopen(_sqlite3.__file__, _ctypes.RTLD_LOCAL)
        self.integer = c_int
        self.pointer = c_void_p
        self.pointer_size = _ctypes.sizeof(c_void_p)
        self.byref = _ctypes.byref
        self.db_filename = Function(("sqlite3_db_filename", self))  # type: ignore[arg-type]  # any object with _handle
        self.db_filename.restype = c_char_p
        self.db_filename.argtypes = [c_void_p, c_char_p]
        self.db_config = Function(("sqlite3_db_config", self))  # type: ignore[arg-type]
