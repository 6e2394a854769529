"""Everything that knows the table layout and transactions of the memory store.

Open a store with :class:`memory_core.store.engines.database.Store`; its write verb is
``Store.transaction()``. Four rooms, one concept each:

* ``engines``: opening and connecting to SQLite or PostgreSQL behind one connection protocol
  (the only room that imports a driver)
* ``schema``: migrations, the shared column lists, owners and row-level security, integrity
* ``tables``: the tables' operations, small functions taking a connection
* ``safekeeping``: checked copies of ``memory.db`` and putting one back

This package imports no policy above it (capture, jobs, consolidation, controls, reports,
recall); the architecture test keeps it so.
"""
