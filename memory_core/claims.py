"""Building new claim records and adding them under the suppression rule."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memory_core.ids import content_hash, memory_id, normalize_content
from memory_core.records import Evidence, Memory
from memory_core.store.memories import get_memory, put_memory
from memory_core.store.suppression import is_blocked


def build_claim(
    *,
    origin: str,
    kind: str,
    content: str,
    source_id: str | None,
    evidence: Evidence | None,
    now: float,
    model_id: str | None = None,
    search_terms: Sequence[str] = (),
    replaces: str | None = None,
) -> Memory:
    """A new active claim with host-assigned provenance."""
    text = normalize_content(content)
    return Memory(
        id=memory_id(origin, kind, text),
        origin=origin,
        kind=kind,  # type: ignore[arg-type]
        content=text,
        content_hash=content_hash(text),
        search_terms=list(search_terms),
        source_id=source_id,
        model_id=model_id,
        evidence=evidence,
        created_at=now,
        updated_at=now,
        replaces=replaces,
    )


def add_claim(conn: sqlite3.Connection, claim: Memory) -> str:
    """Insert ``claim`` unless blocked or already stored. Returns what happened:
    ``added``, ``blocked`` or ``exists`` (with the stored record left as it is)."""
    if is_blocked(conn, claim.origin, claim.content_hash):
        return "blocked"
    if get_memory(conn, claim.id) is not None:
        return "exists"
    put_memory(conn, claim)
    return "added"
