"""Reading and writing claim rows. Every write also maintains the recall index."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from memory_core.errors import CorruptRecordError, NotFoundError, short_error
from memory_core.ids import is_memory_id
from memory_core.records import Memory
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import claim_scope, may_see_claim
from memory_core.store.tables.claim_rows import write_claim_row
from memory_core.store.tables.postings import index_part, remove_postings, update_postings


def memory_from_row(row: tuple) -> Memory:
    """Validate one ``memories`` row; a mismatch raises :class:`CorruptRecordError`."""
    row_id, origin, kind, status, chash, updated_at, body = tuple(row)
    try:
        memory = Memory.model_validate_json(body)
    except (ValidationError, ValueError) as exc:
        raise CorruptRecordError("memories", str(row_id), short_error(exc)) from None
    expected = (memory.id, memory.origin, memory.kind, memory.status, memory.content_hash, memory.updated_at)
    if expected != (row_id, origin, kind, status, chash, updated_at):
        raise CorruptRecordError("memories", str(row_id), "indexed columns disagree with body")
    return memory


def get_memory(conn: DbConn, memory_id: str) -> Memory | None:
    """The claim with this id, or ``None``."""
    row = conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id=?", (memory_id,)).fetchone()
    return None if row is None else memory_from_row(row)


def require_memory(conn: DbConn, memory_id: str) -> Memory:
    """The claim with this id, or a clear error saying how ids look and where to find them."""
    if not is_memory_id(memory_id):
        raise NotFoundError(
            f"{memory_id!r} is not a memory id (24 lowercase hex characters); see `memevo list` or `memevo search`"
        )
    # Another member's personal claim is as absent as no claim: no one changes it but its owner.
    memory = get_memory(conn, memory_id) if may_see_claim(conn, memory_id) else None
    if memory is None:
        raise NotFoundError(f"no memory with id {memory_id}; see `memevo list`")
    return memory


def put_memory(conn: DbConn, memory: Memory) -> None:
    """Insert or replace a claim row and its postings (call inside a transaction)."""
    scope, owner = write_claim_row(
        conn,
        memory_id=memory.id,
        origin=memory.origin,
        kind=memory.kind,
        status=memory.status,
        content_hash=memory.content_hash,
        updated_at=memory.updated_at,
        body=memory.model_dump_json(),
        scope=claim_scope(memory.kind, memory.origin, memory.content, memory.search_terms),
    )
    # The index rows go where the claim's readers are (memory_core.store.tables.postings, parts).
    update_postings(conn, memory, index_part(scope, owner))


def delete_memory(conn: DbConn, memory_id: str) -> None:
    """Physically remove a row: only undo of a record's creation uses this."""
    conn.execute("DELETE FROM memories WHERE id=?", (memory_id,))
    remove_postings(conn, memory_id)


def iter_memory_rows(conn: DbConn) -> Iterator[tuple]:
    """Every raw row, oldest update first (for integrity checks and export)."""
    yield from conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY updated_at, id")


# Claims read per statement by :func:`iter_indexable_memories`.
REBUILD_BATCH = 500


def iter_indexable_memories(conn: DbConn) -> Iterator[Memory]:
    """Every claim that validates, oldest update first, read a batch at a time, so a
    rebuild of the index holds one batch, not the whole store, while it writes on the same
    connection. A row that does not validate is never recallable and is skipped
    (`memevo doctor` names it)."""
    ids = [str(row[0]) for row in conn.execute("SELECT id FROM memories ORDER BY updated_at, id").fetchall()]
    for start in range(0, len(ids), REBUILD_BATCH):
        chunk = ids[start : start + REBUILD_BATCH]
        rows = {
            str(row[0]): row
            for row in conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
        }
        for memory_id in chunk:
            row = rows.get(memory_id)
            if row is None:
                continue
            try:
                yield memory_from_row(row)
            except CorruptRecordError:
                continue
