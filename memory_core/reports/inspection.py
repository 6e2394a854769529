"""Read-only views for people: pages of claims, one claim in full, pages of history.

These build plain dicts so the CLI only renders. Nothing here writes.
"""

from __future__ import annotations

from typing import Any

from memory_core.clock import iso
from memory_core.evidence import source_priority
from memory_core.recall.aging import age_days, freshness, is_dormant
from memory_core.recall.rank import accuracy_factor, evidence_weight, utility_factor
from memory_core.records import Event, Memory, Source
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.engines.dialect import json_text, position
from memory_core.store.schema.columns import EVENT_COLUMNS, MEMORY_COLUMNS
from memory_core.store.schema.owners import hidden_claim_ids, others_owners, visible_clause
from memory_core.store.tables.events import event_from_row, latest_events
from memory_core.store.tables.memories import memory_from_row
from memory_core.store.tables.suppression import is_blocked

LIST_PAGE_SIZE = 20
HISTORY_PAGE_SIZE = 10
# How many events touching one claim `show` lists.
SHOWN_EVENTS = 10
# Far beyond any real store, and small enough that the row offset stays a 64-bit integer.
MAX_PAGE = 10**15


def _offset(page: int, page_size: int) -> int:
    return (min(max(page, 1), MAX_PAGE) - 1) * page_size


def list_memories(
    conn: DbConn,
    *,
    origin: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    page: int = 1,
    origins: tuple[str, ...] = (),
) -> list[Memory]:
    """One page of claims, newest update first (ties by id); filters are exact matches
    (``origins``: any of them, e.g. a project's, memory_core.store.tables.origin_aliases)."""
    clauses: list[str] = []
    params: list[object] = []
    if origins:
        clauses.append(f"origin IN ({','.join('?' * len(origins))})")
        params.extend(origins)
    for column, value in (("origin", origin), ("kind", kind), ("status", status)):
        if value is not None:
            clauses.append(f"{column}=?")
            params.append(value)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else "WHERE 1=1"
    mine, visible = visible_clause(conn)  # never another member's personal claims
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories {where}{mine} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
        (*params, *visible, LIST_PAGE_SIZE, _offset(page, LIST_PAGE_SIZE)),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def memory_summary(memory: Memory, owner: str | None = None) -> dict[str, Any]:
    """The short form used in lists and action results; ``owner`` names whose a shared
    claim of another member is (memory_core.store.schema.owners.others_owners)."""
    summary = {
        "id": memory.id,
        "kind": memory.kind,
        "status": memory.status,
        "pinned": memory.pinned,
        "origin": memory.origin,
        "updated_at": memory.updated_at,
        "content": memory.content,
        "provisional": memory.provisional,
    }
    if owner is not None:
        summary["owner"] = owner
    return summary


def events_touching(conn: DbConn, memory_id: str, limit: int = SHOWN_EVENTS) -> list[Event]:
    """The newest events whose before or after records include ``memory_id``, without
    those that also touch another member's personal claims (as :func:`history_page`)."""
    # Ids are 24 hex characters, so a substring match on the body cannot be fooled by
    # wildcards; each hit is confirmed on the parsed event.
    rows = conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE {position(conn, 'body')} > 0 ORDER BY id DESC",
        (memory_id,),
    )
    hidden = hidden_claim_ids(conn)
    found: list[Event] = []
    for row in rows:
        event = event_from_row(row)
        ids = [m.id for m in event.before + event.after]
        if memory_id in ids and not any(i in hidden for i in ids):
            found.append(event)
            if len(found) >= limit:
                break
    return found


def quality_of(memory: Memory, now: float) -> dict[str, Any]:
    """The factors recall ranks this record by, as of ``now``."""
    utility = memory.feedback.utility.verdict if memory.feedback.utility else None
    accuracy = memory.feedback.accuracy.verdict if memory.feedback.accuracy else None
    priority = source_priority(memory)
    return {
        "source_priority": priority,
        "evidence_weight": round(evidence_weight(priority), 4),
        "freshness": round(freshness(memory.kind, memory.clock_at, now, pinned=memory.pinned), 4),
        "dormant": is_dormant(memory.kind, memory.clock_at, now, pinned=memory.pinned),
        "age_days": round(age_days(memory.clock_at, now), 2),
        "utility": round(utility_factor(utility), 4),
        "accuracy": round(accuracy_factor(accuracy), 4),
    }


def describe_memory(conn: DbConn, memory: Memory, now: float) -> dict[str, Any]:
    """Everything ``show`` prints: the record, its provenance, evidence, feedback and quality;
    on a team store, whose another member's claim is and who made each change."""
    evidence = memory.evidence
    events = events_touching(conn, memory.id)
    owners = others_owners(conn, "memories", [memory.id])
    by = others_owners(conn, "events", [e.id for e in events])
    described = {
        "id": memory.id,
        "kind": memory.kind,
        "status": memory.status,
        "pinned": memory.pinned,
        "provisional": memory.provisional,
        "content": memory.content,
        "search_terms": list(memory.search_terms),
        "provenance": {
            "origin": memory.origin,
            "source_id": memory.source_id,
            "model_id": memory.model_id,
            "created_at": memory.created_at,
            "updated_at": memory.updated_at,
            "confirmed_at": memory.confirmed_at,
            "revision": memory.revision,
            "replaces": memory.replaces,
            "replaced_by": memory.replaced_by,
        },
        "evidence": None if evidence is None else evidence.model_dump(mode="json"),
        "feedback": memory.feedback.model_dump(mode="json"),
        "quality": {
            **quality_of(memory, now),
            "content_blocked": is_blocked(conn, memory.origin, memory.content_hash),
        },
        "events": [
            {"id": e.id, "at": e.at, "operation": e.operation, "actor": e.actor}
            | ({"by": by[str(e.id)]} if str(e.id) in by else {})
            for e in events
        ],
    }
    if memory.id in owners:
        described["owner"] = owners[memory.id]
    return described


SOURCE_CLAIMS_SHOWN = 20


def describe_source(conn: DbConn, source: Source) -> dict[str, Any]:
    """Everything ``show`` prints for a source: what was captured, its job (with why the
    last attempt failed, as allowlisted codes), and the claims and events it produced."""
    claims = conn.execute(
        f"SELECT id, kind, status FROM memories WHERE {json_text(conn, 'body', 'source_id')} = ? "
        "ORDER BY updated_at DESC, id LIMIT ?",
        (source.id, SOURCE_CLAIMS_SHOWN),
    ).fetchall()
    events = conn.execute(
        "SELECT id, at, actor, operation FROM events WHERE source_id = ? ORDER BY id DESC LIMIT ?",
        (source.id, SHOWN_EVENTS),
    ).fetchall()
    return {
        "id": source.id,
        "type": "source",
        "source_type": source.source_type,
        "origin": source.origin,
        "agent": source.agent,
        "session_id": source.session_id,
        "created_at": source.created_at,
        "text": source.text,
        "target_ids": list(source.target_ids),
        "job": {
            "state": source.state.value,
            "attempts": source.attempt,
            "consecutive_failures": source.consecutive_failures,
            "last_error_code": source.last_error_code.value if source.last_error_code else None,
            "last_error_reason": source.last_error_reason,
            "last_failure_at": source.last_failure_at,
            "next_due_at": source.next_due_at if source.state.value == "pending" else None,
            "completed_at": source.completed_at,
            "forced_requested_at": source.forced_at,
        },
        "claims": [{"id": r[0], "kind": r[1], "status": r[2]} for r in claims],
        "events": [{"id": r[0], "at": r[1], "actor": r[2], "operation": r[3]} for r in events],
    }


def event_summary(event: Event, by: str | None = None) -> dict[str, Any]:
    """One history line: what happened, when, by whom, to which records; ``by`` names the
    member who made a change on a team store when it was not the current person."""
    summary = {
        "id": event.id,
        "at": event.at,
        "at_iso": iso(event.at),
        "actor": event.actor,
        "operation": event.operation,
        "reason": event.reason,
        "source_id": event.source_id,
        "before_ids": [m.id for m in event.before],
        "after_ids": [m.id for m in event.after],
        "details": event.details,
    }
    if by is not None:
        summary["by"] = by
    return summary


def history_page(conn: DbConn, page: int = 1) -> list[Event]:
    """One page of events, newest first, without those touching another member's personal
    claims (so a page of a team store may hold fewer)."""
    events = latest_events(conn, limit=HISTORY_PAGE_SIZE, offset=_offset(page, HISTORY_PAGE_SIZE))
    hidden = hidden_claim_ids(conn)
    return [e for e in events if not hidden or not any(m.id in hidden for m in e.before + e.after)]
