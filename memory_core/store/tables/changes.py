"""The one way to change claims: write the rows, bump the origin generation when a person
made the change, and record one event with the actual records before and after, all in the
caller's transaction, so history never drifts from the data.

Every writer of claims (manual controls, undo, feedback, import, model apply) collects its
writes in a :class:`ChangeSet` and commits it once. Capture of a summary's labelled lines
writes the same rows and one event through the plain writers this shares
(memory_core.capture.local_claims: new claims only, in a hook that loads no record models;
a test compares what both write).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memory_core.records import Memory
from memory_core.store.engines.connection import require_transaction
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.events import record_event
from memory_core.store.tables.generations import bump_generation
from memory_core.store.tables.memories import put_memory


class ChangeSet:
    """Before/after records of one transaction, committed as a single event.

    ``before`` holds a record as it was stored before this transaction, so only the first
    write of an id can set it: a record this change created and then wrote again has no
    before, and undo tombstones it.
    """

    def __init__(self, conn: DbConn, what: str = "a change to memories") -> None:
        require_transaction(conn, what)
        self.conn = conn
        self.before: dict[str, Memory] = {}
        self.after: dict[str, Memory] = {}

    def write(self, old: Memory | None, new: Memory) -> None:
        """Store ``new`` (which was ``old`` before, or is created when ``old`` is None)."""
        if old is not None and new.id not in self.after:
            self.before[new.id] = old
        self.after[new.id] = new
        put_memory(self.conn, new)

    def write_all(self, before: Iterable[Memory], after: Iterable[Memory]) -> None:
        """Store every record of ``after``; ``before`` lists the prior states of those that existed."""
        for memory in before:
            if memory.id not in self.after:
                self.before.setdefault(memory.id, memory)
        for memory in after:
            self.after[memory.id] = memory
            put_memory(self.conn, memory)

    def current(self, memory: Memory) -> Memory:
        """The record as this change has left it so far (``memory`` if not written yet)."""
        return self.after.get(memory.id, memory)

    def commit(
        self,
        *,
        at: float,
        actor: str,
        operation: str,
        source_id: str | None,
        manual: bool,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> int | None:
        """Record the event (and bump the generation of every origin touched when the change
        is ``manual``, so model output computed before it is refused as stale). Returns the
        event id, or ``None`` when nothing was written."""
        if not self.after:
            return None
        before, after = list(self.before.values()), list(self.after.values())
        if manual:
            for origin in sorted({m.origin for m in before + after}):
                bump_generation(self.conn, origin)
        return record_event(
            self.conn,
            at=at,
            actor=actor,
            operation=operation,
            before=before,
            after=after,
            reason=reason,
            source_id=source_id,
            details=details,
        )
