"""Capturing sources: sanitized, idempotent, and (for summaries) with local claims.

A source row is both the evidence and its consolidation job. Capturing the same event
twice (same dedupe key) leaves one source.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory_core.capture.summary_lines import extract_local_claims
from memory_core.ids import source_id as make_source_id
from memory_core.sanitize import sanitize_text
from memory_core.store.source_rows import insert_source_row, new_job, source_exists

if TYPE_CHECKING:
    pass


SOURCE_TYPES = ("summary", "user_statement", "progress")


@dataclass(frozen=True)
class CaptureResult:
    source_id: str
    created: bool
    local_claims: int = 0


def canonical_origin(cwd: str) -> str:
    """The capture origin: the real, absolute path of the working directory."""
    return os.path.realpath(os.path.expanduser(cwd)) if cwd else "unknown"


def dedupe_key(agent: str, session_id: str | None, source_type: str, text: str) -> str:
    """Same agent, session, type and text: the same source."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    return f"{agent}|{session_id or '-'}|{source_type}|{digest}"


def capture_source(
    conn: sqlite3.Connection,
    *,
    source_type: str,
    origin: str,
    text: str,
    now: float,
    agent: str = "generic",
    session_id: str | None = None,
    target_ids: tuple[str, ...] = (),
) -> CaptureResult:
    """Store one sanitized source as a due job (call inside a write transaction).

    Summaries also yield their self-labelled lines as ``summary/local`` claims in the same
    transaction, so a failed model pass never loses them. The source row is written without
    loading the record models (the hook path stays cheap); reads validate it as a record.
    """
    if source_type not in SOURCE_TYPES:
        raise ValueError(f"unknown source type {source_type!r}")
    clean = sanitize_text(text)
    if not clean:
        raise ValueError("nothing to capture after sanitizing")
    key = dedupe_key(agent, session_id, source_type, clean)
    sid = make_source_id(key)
    if source_exists(conn, sid):
        return CaptureResult(sid, created=False)
    insert_source_row(
        conn, source_id=sid, origin=origin, source_type=source_type, dedupe_key=key, created_at=now,
        text=clean, agent=agent, session_id=session_id, target_ids=list(target_ids)[:8], job=new_job(now),
    )
    added = 0
    if source_type == "summary":
        lines = extract_local_claims(clean)
        if lines:
            added = _add_local_claims(conn, sid, origin, lines, now)
    return CaptureResult(sid, created=True, local_claims=added)


def _add_local_claims(conn: sqlite3.Connection, sid: str, origin: str, lines: list[tuple[str, str]],
                      now: float) -> int:
    # Only summaries with labelled lines need the record models.
    from memory_core.records import Evidence, new_memory
    from memory_core.store.changes import ChangeSet
    from memory_core.store.memories import get_memory
    from memory_core.store.suppression import is_blocked

    evidence = Evidence(basis="summary", method="local", source_id=sid, at=now)
    changes = ChangeSet(conn, "capture")
    for kind, content in lines:
        claim = new_memory(origin=origin, kind=kind, content=content, source_id=sid, evidence=evidence, now=now)
        # Content the user forgot stays forgotten; a claim already stored is left as it is.
        if claim.id in changes.after or is_blocked(conn, claim.origin, claim.content_hash):
            continue
        if get_memory(conn, claim.id) is None:
            changes.write(None, claim)
    changes.commit(at=now, actor="local", operation="capture_local", source_id=sid, manual=False,
                   reason="labelled lines of a compaction summary")
    return len(changes.after)
