"""Everything that knows the table layout and transactions of ``memory.db``.

Open a store with :class:`memory_core.store.database.Store`; its write verb is
``Store.transaction()``. The storage verbs are small functions taking a connection, one
module per table or concern:

* ``connection``: connecting, privacy modes, ``write_transaction``, ``in_chunks``
* ``migrations``: numbered schema migrations with a backup first
* ``columns``: the column lists every reader and writer shares (standard library only)
* ``memories``: claim rows (``get_memory``, ``put_memory``, ``add_memory``, ``require_memory``)
* ``sources`` / ``source_rows``: source rows (job state included) read as records / written lean
* ``events``: the history of changes, with actual before/after
* ``changes``: :class:`ChangeSet`, the one way to write claims and record the change
* ``generations``: per-origin counters of manual changes
* ``suppression``: origin-qualified blocked hashes and retiring queued repeats
* ``postings`` / ``index_version``: the write side of the recall index
* ``integrity``: checking every stored row

This package imports no policy above it (capture, jobs, consolidation, controls, reports,
recall); the architecture test keeps it so.
"""
