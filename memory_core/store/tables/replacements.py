"""Where a claim's place is now: the end of its replacement chain.

A claim another one replaced is ``superseded`` and names its successor in ``replaced_by``;
the successor may have been replaced in turn. A progress source nominates the project
states that were current when it was captured, so by the time it is consolidated an earlier
turn may have moved them on: what it must update is the state at the end of the chain.
"""

from __future__ import annotations

from memory_core.records import Memory
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.memories import get_memory

# Far more replacements than one state sees between a capture and its consolidation; the
# bound only keeps a corrupt chain (a cycle) from looping.
MAX_CHAIN = 64


def current_claim(conn: DbConn, memory_id: str) -> Memory | None:
    """The claim holding ``memory_id``'s place now: the claim itself unless it was superseded,
    else the last claim of its ``replaced_by`` chain (whatever its status). ``None`` when the
    id names no claim."""
    memory = get_memory(conn, memory_id)
    seen: set[str] = set()
    while (
        memory is not None
        and memory.status == "superseded"
        and memory.replaced_by
        and memory.replaced_by not in seen
        and len(seen) < MAX_CHAIN
    ):
        seen.add(memory.id)
        successor = get_memory(conn, memory.replaced_by)
        if successor is None:
            break
        memory = successor
    return memory


def current_ids(conn: DbConn, memory_ids: list[str]) -> set[str]:
    """The ids holding the places of ``memory_ids`` now (ids that name no claim stay as they are)."""
    found: set[str] = set()
    for memory_id in memory_ids:
        current = current_claim(conn, memory_id)
        found.add(current.id if current is not None else memory_id)
    return found
