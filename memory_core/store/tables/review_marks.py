"""What a person has reviewed of the automatic changes, kept in ``metadata``.

Two values: ``review_through``, the id of the last event the person reviewed whole (every
automatic change up to it counts as seen), and ``review_approved``, the items approved one
by one after it (``"<event id>:<memory id>"`` keys, pruned when the watermark passes them).
On a team store each member has marks of their own (keys ending in ``@<login>``): one
member's review is no one else's. The store's owner (a one-person store's only person, a
team's administrator) keeps the keys without a suffix. Standard library only: the per-turn
recall filter reads them.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from memory_core.store.engines.dbapi import DbConn

THROUGH_KEY = "review_through"
APPROVED_KEY = "review_approved"
REVIEWED_AT_KEY = "review_at"
MAX_APPROVED = 10_000  # beyond this, approve the whole page instead


class ReviewMarks(NamedTuple):
    """The review watermark (an event id), single approvals after it, and when it last moved."""

    through: int
    approved: frozenset[str]
    reviewed_at: float | None


def item_key(event_id: int, memory_id: str) -> str:
    return f"{event_id}:{memory_id}"


def _event_of(key: str) -> int:
    head, _, _ = key.partition(":")
    return int(head) if head.isdigit() else 0


def _keys(conn: DbConn) -> tuple[str, str, str]:
    """The metadata keys of the current person's marks (see the module docstring)."""
    from memory_core.store.schema.owners import person_key

    return person_key(conn, THROUGH_KEY), person_key(conn, APPROVED_KEY), person_key(conn, REVIEWED_AT_KEY)


def read_review_marks(conn: DbConn) -> ReviewMarks:
    """The current person's stored marks; missing or malformed values read as "nothing
    reviewed yet"."""
    through_key, approved_key, reviewed_at_key = _keys(conn)
    values = dict(
        conn.execute(
            "SELECT key, value FROM metadata WHERE key IN (?, ?, ?)", (through_key, approved_key, reviewed_at_key)
        ).fetchall()
    )
    through_text = str(values.get(through_key) or "0")
    through = int(through_text) if through_text.isdigit() else 0
    try:
        keys = json.loads(values.get(approved_key) or "[]")
    except ValueError:
        keys = []
    approved = frozenset(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else frozenset()
    try:
        reviewed_at: float | None = float(values[reviewed_at_key]) if reviewed_at_key in values else None
    except ValueError:
        reviewed_at = None
    return ReviewMarks(through, approved, reviewed_at)


def write_review_marks(conn: DbConn, marks: ReviewMarks) -> ReviewMarks:
    """Store the current person's ``marks`` (inside the caller's write transaction), dropping
    approvals the watermark already covers; returns what was stored."""
    through_key, approved_key, reviewed_at_key = _keys(conn)
    kept = frozenset(k for k in marks.approved if _event_of(k) > marks.through)
    stored = ReviewMarks(marks.through, kept, marks.reviewed_at)
    values = {
        through_key: str(stored.through),
        approved_key: json.dumps(sorted(kept)),
    }
    if stored.reviewed_at is not None:
        values[reviewed_at_key] = repr(float(stored.reviewed_at))
    for key, value in values.items():
        conn.execute(
            "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )
    return stored
