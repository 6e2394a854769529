"""The persisted inverted index, kept in step with claim rows in the same transaction."""

from __future__ import annotations

import sqlite3

from memory_core.recall.tokenize import features
from memory_core.records import Memory


def remove_postings(conn: sqlite3.Connection, memory_id: str) -> None:
    conn.execute("DELETE FROM postings WHERE memory_id=?", (memory_id,))
    conn.execute("DELETE FROM index_docs WHERE memory_id=?", (memory_id,))


def update_postings(conn: sqlite3.Connection, memory: Memory) -> None:
    """Replace the postings of one claim (body and alias fields)."""
    remove_postings(conn, memory.id)
    body = features(memory.content)
    aliases = features(" ".join(memory.search_terms))
    rows = [(f, memory.id, "body", n) for f, n in body.items()]
    rows += [(f, memory.id, "alias", n) for f, n in aliases.items()]
    conn.executemany(
        "INSERT INTO postings (feature, memory_id, field, tf) VALUES (?, ?, ?, ?)", rows
    )
    conn.execute(
        "INSERT INTO index_docs (memory_id, feature_count) VALUES (?, ?)",
        (memory.id, sum(body.values())),
    )
