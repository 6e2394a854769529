"""The write side of the persisted recall index, kept in step with claim rows in the same transaction.

Only recallable claims are indexed: status ``active`` and not assessed ``incorrect``.
A claim that is forgotten, superseded, conflicted or marked incorrect loses its postings
in the very write that changes it, so recall can never offer it.

``postings`` holds one row per (feature, claim, field) where field is ``body``, ``alias``
(model search terms) or ``quote`` (quoted questions inside the body), with the claim's
``updated_at`` as ``recency`` (every claim write rewrites all its postings, so it never
lags; the index ``postings_recent`` reads a list newest first). Each posting list
starts with header rows whose ``memory_id`` is the empty string:

* ``(feature, '', '')``: how many indexed claims contain the feature (its document
  frequency), so a query learns a feature's weight with one lookup, however common it is;
* ``(feature, '', 'o:' + origin)``: how many indexed claims of that origin have the
  feature in their origin identifier (origins are matched, never indexed per claim);
* ``('', '', '')`` counts all indexed claims, ``('', '', 'version')`` records
  :data:`INDEX_VERSION`.

``index_docs`` holds what ranking needs per claim (kind, clock, pin, evidence priority,
feedback, body length), so recall never parses a claim body until it has chosen it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memory_core.store.index_version import INDEX_VERSION
from memory_core.text.tokenize import index_fields, origin_features

if TYPE_CHECKING:
    from memory_core.records import Memory

HEADER = ""
ORIGIN_FIELD_PREFIX = "o:"
DOC_COLUMNS = (
    "memory_id, origin, kind, content_hash, updated_at, clock_at, pinned, priority, "
    "basis, method, utility, accuracy, feature_count"
)


def is_recallable(memory: Memory) -> bool:
    """Whether a claim belongs in the index at all (its lifecycle allows recall)."""
    accuracy = memory.feedback.accuracy
    return memory.status == "active" and not (accuracy is not None and accuracy.verdict == "incorrect")


def _bump(conn: sqlite3.Connection, keys: Iterable[tuple[str, str]], delta: int) -> None:
    conn.executemany(
        "INSERT INTO postings (feature, memory_id, field, tf) VALUES (?, '', ?, ?) "
        "ON CONFLICT(feature, memory_id, field) DO UPDATE SET tf = tf + excluded.tf",
        [(feature, field, delta) for feature, field in keys],
    )


def _header_keys(features: Iterable[str], origin: str) -> list[tuple[str, str]]:
    keys = [(feature, HEADER) for feature in features]
    keys += [(feature, ORIGIN_FIELD_PREFIX + origin) for feature in origin_features(origin)]
    keys.append((HEADER, HEADER))
    return keys


def remove_postings(conn: sqlite3.Connection, memory_id: str) -> None:
    """Drop a claim's postings and its share of the header counts (inside a transaction)."""
    row = conn.execute("SELECT origin FROM index_docs WHERE memory_id=?", (memory_id,)).fetchone()
    if row is not None:
        features = [r[0] for r in conn.execute("SELECT DISTINCT feature FROM postings WHERE memory_id=?", (memory_id,))]
        keys = _header_keys(features, row[0])
        _bump(conn, keys, -1)
        conn.executemany("DELETE FROM postings WHERE feature=? AND memory_id='' AND field=? AND tf <= 0", keys)
        conn.execute("DELETE FROM index_docs WHERE memory_id=?", (memory_id,))
    conn.execute("DELETE FROM postings WHERE memory_id=?", (memory_id,))


def update_postings(conn: sqlite3.Connection, memory: Memory) -> None:
    """Replace a claim's postings and ranking facts (call inside the claim's transaction)."""
    remove_postings(conn, memory.id)
    if not is_recallable(memory):
        return
    # Imported here: evidence imports the records module, which is heavier than recall
    # needs when it only reads.
    from memory_core.evidence import source_priority

    fields = index_fields(memory.content, memory.search_terms)
    conn.executemany(
        "INSERT INTO postings (feature, memory_id, field, tf, recency) VALUES (?, ?, ?, ?, ?)",
        [
            (feature, memory.id, field, n, memory.updated_at)
            for field, counts in fields.items()
            for feature, n in counts.items()
        ],
    )
    distinct = {feature for counts in fields.values() for feature in counts}
    _bump(conn, _header_keys(sorted(distinct), memory.origin), 1)
    conn.execute(
        "INSERT OR IGNORE INTO postings (feature, memory_id, field, tf) VALUES ('', '', 'version', ?)",
        (INDEX_VERSION,),
    )
    evidence = memory.evidence
    utility = memory.feedback.utility
    accuracy = memory.feedback.accuracy
    conn.execute(
        f"INSERT INTO index_docs ({DOC_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory.id,
            memory.origin,
            memory.kind,
            memory.content_hash,
            memory.updated_at,
            memory.clock_at,
            int(memory.pinned),
            source_priority(memory),
            evidence.basis if evidence else None,
            evidence.method if evidence else None,
            utility.verdict if utility else None,
            accuracy.verdict if accuracy else None,
            len(fields.get("body", ())),
        ),
    )


def rebuild_index(conn: sqlite3.Connection, memories: Iterable[Memory]) -> int:
    """Re-derive every posting from ``memories`` (inside a transaction); returns claims indexed.

    Needed only after :data:`INDEX_VERSION` changes; ordinary writes keep the index current.
    The caller reads the claim rows (:meth:`Store.refresh_recall_index`), so the index never
    depends on how they are stored.
    """
    conn.execute("DELETE FROM postings")
    conn.execute("DELETE FROM index_docs")
    conn.execute("INSERT INTO postings (feature, memory_id, field, tf) VALUES ('', '', 'version', ?)", (INDEX_VERSION,))
    count = 0
    for memory in memories:
        update_postings(conn, memory)
        count += is_recallable(memory)
    return count
