"""The connection every store function takes: what ``sqlite3.Connection`` and
:class:`memory_core.store.engines.pg.PgConnection` both provide.

Store code calls ``execute``/``executemany`` with ``?`` placeholders and reads the cursor with
``fetchone``, ``fetchall``, iteration and ``rowcount``; rows are plain tuples on both
backends. Writes run inside :func:`memory_core.store.engines.connection.write_transaction`, which
knows how each backend serializes writers. :func:`dialect` tells the few statements that must
differ (memory_core.store.engines.dialect) which engine they talk to.

The protocol exists for the type checker only: hook modules import this one, and loading
``typing`` costs each hook process milliseconds (docs/hooks.md, "Cost").
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
SQLITE = "sqlite"
POSTGRESQL = "postgresql"

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any, Protocol

    class Cursor(Protocol):
        @property
        def rowcount(self) -> int: ...

        def fetchone(self) -> Any: ...

        def fetchall(self) -> list[Any]: ...

        def __iter__(self) -> Iterator[Any]: ...

    class DbConn(Protocol):
        """A connection in autocommit mode; transactions are opened explicitly."""

        @property
        def in_transaction(self) -> bool: ...

        def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...

        def executemany(self, sql: str, parameters: Iterable[Any], /) -> Any: ...

        def close(self) -> None: ...

else:
    DbConn = object  # annotations only (every module uses ``from __future__ import annotations``)


def dialect(conn: object) -> str:
    """:data:`POSTGRESQL` for a PostgreSQL connection, :data:`SQLITE` otherwise."""
    return getattr(conn, "dialect", SQLITE)


def is_postgres(conn: object) -> bool:
    return getattr(conn, "dialect", SQLITE) == POSTGRESQL
