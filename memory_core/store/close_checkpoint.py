"""Closing a SQLite connection without a checkpoint.

By default the last connection to a WAL database to close checkpoints it: the WAL synced
twice, the database file synced, the WAL deleted, and the next writer creates it again and
syncs the directory. A hook process closes its connection on every capture, and is usually
the last one, so each capture paid five disk syncs per database for work that promises the
person nothing: the commit had already made the capture durable in the WAL. With
``SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`` a close leaves the WAL as it is; SQLite's automatic
checkpoint (every :data:`AUTOCHECKPOINT_PAGES` pages, in whichever connection commits past
it) and the worker's periodic one fold it into the database, and ``journal_size_limit``
bounds the file a reset leaves (docs/reliability.md, "What is synced when").

Python 3.12 offers the setting as :meth:`sqlite3.Connection.setconfig`. On 3.11 it is set
through the SQLite library the interpreter's ``_sqlite3`` module uses, on the connection's
own handle, found where CPython 3.11 keeps it and checked against the database's file name
before use; anywhere that cannot be checked nothing is set and closes checkpoint as before.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (hooks load this)
if TYPE_CHECKING:
    import sqlite3

NO_CKPT_ON_CLOSE = 1006  # SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (sqlite3.h, SQLite 3.16+)
AUTOCHECKPOINT_PAGES = 1000  # SQLite's default: about 4 MB of WAL between checkpoints
JOURNAL_SIZE_LIMIT = 8 * 1024 * 1024  # what a WAL reset truncates the file to, at most

_library = None


def skip_checkpoint_on_close(conn: sqlite3.Connection, path: str) -> bool:
    """Make closing ``conn`` (a connection to ``path``) leave the WAL unchecked-pointed; True
    when set. Also bounds the WAL file a checkpoint leaves behind."""
    conn.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:  # Python 3.12+
        setconfig(NO_CKPT_ON_CLOSE, True)
        return True
    return _db_config_311(conn, path)


def _db_config_311(conn: sqlite3.Connection, path: str) -> bool:
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or hasattr(sys, "gettotalrefcount"):
        return False
    import ctypes

    global _library
    if _library is None:
        import _sqlite3

        library = ctypes.CDLL(_sqlite3.__file__)  # its symbols include the SQLite it links
        library.sqlite3_db_filename.restype = ctypes.c_char_p
        library.sqlite3_db_filename.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        library.sqlite3_db_config.restype = ctypes.c_int
        _library = library
    # CPython 3.11's pysqlite_Connection: PyObject_HEAD, then the sqlite3 pointer.
    handle = ctypes.c_void_p.from_address(id(conn) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    if not handle:
        return False
    name = _library.sqlite3_db_filename(handle, b"main")
    if name is None or os.path.realpath(os.fsdecode(name)) != os.path.realpath(path):
        return False
    done = ctypes.c_int(-1)
    result = _library.sqlite3_db_config(ctypes.c_void_p(handle), NO_CKPT_ON_CLOSE, ctypes.c_int(1), ctypes.byref(done))
    return result == 0 and done.value == 1
