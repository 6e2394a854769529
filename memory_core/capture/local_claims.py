"""A compaction summary's labelled lines as ``summary/local`` claims, written in the
capture's transaction with the standard library only.

The lines become claims at once (a failed or absent model pass never loses them), and the
hook that captures a summary stays as cheap as any capture: the rows, their index and the
one ``capture_local`` event are written as plain data (memory_core.store.tables.claim_rows,
event_rows, postings.index_claim), exactly as the record models would write them (a test
compares them). Reads validate every row as a record.
"""

from __future__ import annotations

from memory_core.ids import content_hash, normalize_content
from memory_core.store.engines.connection import require_transaction
from memory_core.store.schema.owners import claim_scope, event_scope
from memory_core.store.tables.blocked import is_blocked
from memory_core.store.tables.claim_ids import claim_id, id_owner
from memory_core.store.tables.claim_rows import body_json, claim_exists, new_claim_body, write_claim_row
from memory_core.store.tables.event_rows import insert_event
from memory_core.store.tables.postings import index_claim, index_part

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.store.engines.dbapi import DbConn

# memory_core.evidence's priority of summary evidence (evidence_priority), which ranks it.
SUMMARY_PRIORITY = 1


def add_local_claims(conn: DbConn, source_id: str, origin: str, lines: list[tuple[str, str]], now: float) -> int:
    """Write each ``(kind, normalized content)`` line not stored yet and not blocked in the
    project as a new claim of ``source_id``; one event for all of them. Returns how many."""
    require_transaction(conn, "capturing a summary's labelled lines")
    evidence = {"basis": "summary", "method": "local", "source_id": source_id, "at": float(now)}
    owner = id_owner(conn)
    written: dict[str, dict[str, object]] = {}
    for kind, line in lines:
        content = normalize_content(line)
        cid = claim_id(owner, origin, kind, content)
        chash = content_hash(content)
        # Content the user forgot stays forgotten; a claim already stored is left as it is.
        if cid in written or is_blocked(conn, origin, chash) or claim_exists(conn, cid):
            continue
        body = new_claim_body(
            memory_id=cid,
            origin=origin,
            kind=kind,
            content=content,
            content_hash=chash,
            source_id=source_id,
            evidence=evidence,
            now=now,
        )
        scope, row_owner = write_claim_row(
            conn,
            memory_id=cid,
            origin=origin,
            kind=kind,
            status="active",
            content_hash=chash,
            updated_at=float(now),
            body=body_json(body),
            scope=claim_scope(kind, origin, content),
        )
        index_claim(
            conn,
            memory_id=cid,
            origin=origin,
            kind=kind,
            content=content,
            search_terms=(),
            content_hash=chash,
            updated_at=float(now),
            clock_at=float(now),
            pinned=False,
            priority=SUMMARY_PRIORITY,
            basis="summary",
            method="local",
            utility=None,
            accuracy=None,
            part=index_part(scope, row_owner),
        )
        written[cid] = body
    if written:
        claims = list(written.values())
        insert_event(
            conn,
            at=now,
            actor="local",
            operation="capture_local",
            before=[],
            after=claims,
            # Shared with the team only when every claim it holds is (memory_core.store.schema.owners).
            scope=event_scope((str(c["kind"]), origin, str(c["content"]), ()) for c in claims),
            reason="labelled lines of a compaction summary",
            source_id=source_id,
        )
    return len(written)
