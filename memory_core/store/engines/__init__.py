"""The two engines behind one store: opening, connecting, transactions.

* ``database``: :class:`Store` (open, migrate, transaction)
* ``backend`` / ``dbapi``: which store and queue the URLs name; the connection protocol
* ``connection``: SQLite connections, privacy modes, ``write_transaction``, ``in_chunks``
* ``close_checkpoint``: connections that close without a checkpoint; a bounded WAL
* ``pg`` / ``dialect``: PostgreSQL kept to SQLite's meaning; the statements that differ
* ``copying`` / ``relocate``: every table copied between engines; migrate-to's move

The only package of the store that imports a database driver (with ``safekeeping``,
which copies SQLite files); the architecture test keeps it so.
"""
