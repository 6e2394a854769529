"""The read side of the persisted recall index (layout: :mod:`memory_core.store.postings`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from memory_core.store.connection import in_chunks
from memory_core.store.postings import DOC_COLUMNS, HEADER, ORIGIN_FIELD_PREFIX


class IndexedDoc(NamedTuple):
    """The ranking facts of one indexed claim."""

    memory_id: str
    origin: str
    kind: str
    content_hash: str
    updated_at: float
    clock_at: float
    pinned: int  # 0 or 1, as stored
    priority: int
    basis: str | None
    method: str | None
    utility: str | None
    accuracy: str | None
    feature_count: int


class Headers(NamedTuple):
    """Collection statistics for a set of query features."""

    total: int
    document_frequency: dict[str, int]
    origins: dict[str, tuple[str, ...]]


def read_headers(conn: sqlite3.Connection, features: Sequence[str]) -> Headers:
    """Indexed-claim count, document frequencies and matching origins of ``features``."""
    row = conn.execute("SELECT tf FROM postings WHERE feature='' AND memory_id='' AND field=''").fetchone()
    total = int(row[0]) if row else 0
    frequency: dict[str, int] = {}
    origins: dict[str, list[str]] = {}
    wanted = [f for f in dict.fromkeys(features) if f]
    for marks, chunk in in_chunks(wanted):
        for feature, field, tf in conn.execute(
            f"SELECT feature, field, tf FROM postings WHERE memory_id='' AND feature IN ({marks})", chunk
        ):
            if field == HEADER:
                frequency[feature] = int(tf)
            elif field.startswith(ORIGIN_FIELD_PREFIX):
                origins.setdefault(feature, []).append(field[len(ORIGIN_FIELD_PREFIX) :])
    return Headers(total, frequency, {f: tuple(o) for f, o in origins.items()})


def read_posting_list(conn: sqlite3.Connection, feature: str) -> list[tuple[str, str]]:
    """Every (claim id, field) holding ``feature``."""
    return conn.execute(
        "SELECT memory_id, field FROM postings WHERE feature=? AND memory_id > ''", (feature,)
    ).fetchall()


def read_recent_postings(conn: sqlite3.Connection, feature: str, claims: int) -> list[tuple[str, str]]:
    """The (claim id, field) pairs of ``feature`` in its ``claims`` most recently updated
    claims (ties in id order), read newest first through ``postings_recent``."""
    found: list[tuple[str, str]] = []
    seen = 0
    last = ""
    for memory_id, field in conn.execute(
        "SELECT memory_id, field FROM postings INDEXED BY postings_recent "
        "WHERE feature=? AND memory_id > '' ORDER BY recency DESC, memory_id",
        (feature,),
    ):
        if memory_id != last:
            if seen == claims:
                break
            seen += 1
            last = memory_id
        found.append((memory_id, field))
    return found


def probe_postings(conn: sqlite3.Connection, feature: str, memory_ids: Sequence[str]) -> list[tuple[str, str]]:
    """The (claim id, field) pairs of ``feature`` among ``memory_ids`` (point lookups)."""
    found: list[tuple[str, str]] = []
    for marks, chunk in in_chunks(memory_ids):
        found.extend(
            conn.execute(
                f"SELECT memory_id, field FROM postings WHERE feature=? AND memory_id IN ({marks})",
                (feature, *chunk),
            )
        )
    return found


def read_docs(conn: sqlite3.Connection, memory_ids: Sequence[str]) -> dict[str, IndexedDoc]:
    """The ranking facts of the given indexed claims."""
    docs: dict[str, IndexedDoc] = {}
    for marks, chunk in in_chunks(memory_ids):
        make = IndexedDoc._make
        for row in conn.execute(f"SELECT {DOC_COLUMNS} FROM index_docs WHERE memory_id IN ({marks})", chunk):
            docs[row[0]] = make(row)
    return docs
