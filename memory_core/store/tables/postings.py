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

Claims whose indexed fields give the same (feature, field) pairs share one **body**
(schema version 4): ``bodies`` holds each distinct one once, with the number of indexed
claims holding it, and ``body_postings(feature, body, field)`` its postings, headed per
feature by ``(feature, 0, '')`` whose ``tf`` counts the bodies holding it. A claim's
``index_docs`` row names its body and its ``grade`` (pin, evidence priority and feedback
factors: claims of one body, kind and grade rank in the order of their clocks). Recall
scores a body once however many claims repeat it (:mod:`memory_core.recall.expansion`).

Every row of the four tables belongs to one **part** (schema version 8): who may read it.
A shared claim's rows are in part ``'*'`` (:data:`SHARED_PART`), a personal claim's in its
owner's (``''`` for the store's owner on SQLite and for rows copied from SQLite), and
each part has its own header rows, bodies and counts, so the words of one person's
personal claims are in rows only that person may read (memory_core.store.schema.team's policies
on PostgreSQL) and recall reads the parts it may see before ranking
(:mod:`memory_core.store.tables.index_parts`). The version row is in the shared part.
"""

from __future__ import annotations

from collections.abc import Iterable

from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.index_version import INDEX_VERSION
from memory_core.text.tokenize import OWNER_MARK, index_fields, origin_features
from memory_core.text.value_classes import is_value_class

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.records import Memory

HEADER = ""
# The part of a shared claim's index rows; a personal claim's part is its owner (a login
# name, which never contains ``*``).
SHARED_PART = "*"
ORIGIN_FIELD_PREFIX = "o:"
DOC_COLUMNS = (
    "memory_id, origin, kind, content_hash, updated_at, clock_at, pinned, priority, "
    "basis, method, utility, accuracy, feature_count"
)
BODY_HEADER = 0
# Grade codes of the feedback verdicts, by the factor they give (rank.UTILITY_FACTORS and
# ACCURACY_FACTORS): equal grades rank alike, so a grade's claims of one body and kind are
# in rank order when read newest clock first.
_VERDICT_CODES = {"useful": 1, "unhelpful": 2, "accurate": 1, "incorrect": 2}


def grade(pinned: bool | int, priority: int, utility: str | None, accuracy: str | None) -> int:
    """One integer for what ranks a claim besides relevance and its clock."""
    codes = _VERDICT_CODES
    return (
        int(bool(pinned)) * 1_000_000 + priority * 100 + codes.get(utility or "", 0) * 10 + codes.get(accuracy or "", 0)
    )


def index_part(scope: str, owner: str) -> str:
    """The part of a claim's index rows: :data:`SHARED_PART` for a shared claim, its
    owner's for a personal one."""
    return SHARED_PART if scope == "shared" else owner


def body_key(pairs: Iterable[tuple[str, str]], part: str = "") -> str:
    """The identity of a body: a digest of its part and sorted (field, feature) pairs."""
    # Imported here: recall reads this module's layout, only writes need the hash.
    from memory_core.ids import sha256_hex

    text = "".join(f"{field}\x00{feature}\x01" for field, feature in sorted(pairs))
    if part:  # the store owner's own part keeps the keys bodies had before parts
        text = f"{part}\x02{text}"
    return sha256_hex(text.encode())[:32]


def _attach_body(conn: DbConn, pairs: list[tuple[str, str]], feature_count: int, part: str) -> int:
    """The id of the body with these (field, feature) pairs in ``part``, its claim count
    raised by one."""
    key = body_key(pairs, part)
    row = conn.execute("SELECT id FROM bodies WHERE key=?", (key,)).fetchone()
    if row is not None:
        conn.execute("UPDATE bodies SET claims = claims + 1 WHERE id=?", (row[0],))
        return int(row[0])
    body = int(
        conn.execute(
            "INSERT INTO bodies (key, claims, feature_count, part) VALUES (?, 1, ?, ?) RETURNING id",
            (key, feature_count, part),
        ).fetchone()[0]
    )
    assert body > BODY_HEADER
    conn.executemany(
        "INSERT INTO body_postings (feature, body, field, tf, part) VALUES (?, ?, ?, 1, ?)",
        [(feature, body, field, part) for field, feature in pairs],
    )
    features = sorted({feature for _, feature in pairs})
    _bump_bodies(conn, [*features, HEADER], 1, part)
    return body


def _bump_bodies(conn: DbConn, features: list[str], delta: int, part: str) -> None:
    conn.executemany(
        "INSERT INTO body_postings (feature, body, field, tf, part) VALUES (?, 0, '', ?, ?) "
        "ON CONFLICT(feature, body, field, part) DO UPDATE SET tf = body_postings.tf + excluded.tf",
        [(feature, delta, part) for feature in features],
    )
    if delta < 0:
        conn.executemany(
            "DELETE FROM body_postings WHERE feature=? AND body=0 AND field='' AND part=? AND tf <= 0",
            [(f, part) for f in features],
        )


def _detach_body(conn: DbConn, body: int) -> None:
    """One claim fewer holds ``body``; the last one takes its postings with it."""
    conn.execute("UPDATE bodies SET claims = claims - 1 WHERE id=?", (body,))
    row = conn.execute("SELECT claims, part FROM bodies WHERE id=?", (body,)).fetchone()
    if row is None or row[0] > 0:
        return
    features = [r[0] for r in conn.execute("SELECT DISTINCT feature FROM body_postings WHERE body=?", (body,))]
    _bump_bodies(conn, [*features, HEADER], -1, str(row[1]))
    conn.execute("DELETE FROM body_postings WHERE body=?", (body,))
    conn.execute("DELETE FROM bodies WHERE id=?", (body,))


def is_recallable(memory: Memory) -> bool:
    """Whether a claim belongs in the index at all (its lifecycle allows recall)."""
    accuracy = memory.feedback.accuracy
    return memory.status == "active" and not (accuracy is not None and accuracy.verdict == "incorrect")


def _bump(conn: DbConn, keys: Iterable[tuple[str, str]], delta: int, part: str) -> None:
    conn.executemany(
        "INSERT INTO postings (feature, memory_id, field, tf, part) VALUES (?, '', ?, ?, ?) "
        "ON CONFLICT(feature, memory_id, field, part) DO UPDATE SET tf = postings.tf + excluded.tf",
        [(feature, field, delta, part) for feature, field in keys],
    )


def _header_keys(features: Iterable[str], origin: str) -> list[tuple[str, str]]:
    keys = [(feature, HEADER) for feature in features]
    keys += [(feature, ORIGIN_FIELD_PREFIX + origin) for feature in origin_features(origin)]
    keys.append((HEADER, HEADER))
    return keys


def remove_postings(conn: DbConn, memory_id: str) -> None:
    """Drop a claim's postings and its share of the header counts (inside a transaction)."""
    row = conn.execute("SELECT origin, body, part FROM index_docs WHERE memory_id=?", (memory_id,)).fetchone()
    if row is not None:
        part = str(row[2])
        features = [r[0] for r in conn.execute("SELECT DISTINCT feature FROM postings WHERE memory_id=?", (memory_id,))]
        keys = _header_keys(features, row[0])
        _bump(conn, keys, -1, part)
        if row[1] > BODY_HEADER:
            _detach_body(conn, int(row[1]))
        conn.executemany(
            "DELETE FROM postings WHERE feature=? AND memory_id='' AND field=? AND part=? AND tf <= 0",
            [(feature, field, part) for feature, field in keys],
        )
        conn.execute("DELETE FROM index_docs WHERE memory_id=?", (memory_id,))
    conn.execute("DELETE FROM postings WHERE memory_id=?", (memory_id,))


def update_postings(conn: DbConn, memory: Memory, part: str) -> None:
    """Replace a claim's postings and ranking facts, in ``part`` (:func:`index_part`; call
    inside the claim's transaction)."""
    remove_postings(conn, memory.id)
    if not is_recallable(memory):
        return
    # Imported here: evidence imports the records module, which is heavier than recall
    # needs when it only reads.
    from memory_core.evidence import source_priority

    evidence = memory.evidence
    utility = memory.feedback.utility
    accuracy = memory.feedback.accuracy
    index_claim(
        conn,
        memory_id=memory.id,
        origin=memory.origin,
        kind=memory.kind,
        content=memory.content,
        search_terms=memory.search_terms,
        content_hash=memory.content_hash,
        updated_at=memory.updated_at,
        clock_at=memory.clock_at,
        pinned=memory.pinned,
        priority=source_priority(memory),
        basis=evidence.basis if evidence else None,
        method=evidence.method if evidence else None,
        utility=utility.verdict if utility else None,
        accuracy=accuracy.verdict if accuracy else None,
        part=part,
    )


def index_claim(
    conn: DbConn,
    *,
    memory_id: str,
    origin: str,
    kind: str,
    content: str,
    search_terms: list[str] | tuple[str, ...],
    content_hash: str,
    updated_at: float,
    clock_at: float,
    pinned: bool,
    priority: int,
    basis: str | None,
    method: str | None,
    utility: str | None,
    accuracy: str | None,
    part: str,
) -> None:
    """Index a recallable claim that has no postings yet, from its plain facts, in ``part``
    (:func:`update_postings` for records; capture's labelled lines without the record models)."""
    fields = index_fields(content, search_terms)
    conn.executemany(
        "INSERT INTO postings (feature, memory_id, field, tf, recency, part) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (feature, memory_id, field, n, updated_at, part)
            for field, counts in fields.items()
            for feature, n in counts.items()
        ],
    )
    distinct = {feature for counts in fields.values() for feature in counts}
    _bump(conn, _header_keys(sorted(distinct), origin), 1, part)
    _write_version(conn)
    # A value class or an owner's mark is no word of the claim: its length is its own features' count.
    feature_count = sum(1 for f in fields.get("body", ()) if not (is_value_class(f) or f.startswith(OWNER_MARK)))
    body = _attach_body(conn, [(field, f) for field, counts in fields.items() for f in counts], feature_count, part)
    conn.execute(
        f"INSERT INTO index_docs ({DOC_COLUMNS}, body, grade, part) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            origin,
            kind,
            content_hash,
            updated_at,
            clock_at,
            int(pinned),
            priority,
            basis,
            method,
            utility,
            accuracy,
            feature_count,
            body,
            grade(pinned, priority, utility, accuracy),
            part,
        ),
    )


def _write_version(conn: DbConn) -> None:
    # Only when absent: on a team store a member's login may not write this row
    # (memory_core.store.schema.policies); the administrator made it when the team began.
    if conn.execute("SELECT 1 FROM postings WHERE feature='' AND memory_id='' AND field='version'").fetchone():
        return
    conn.execute(
        "INSERT INTO postings (feature, memory_id, field, tf, part) VALUES ('', '', 'version', ?, ?) "
        "ON CONFLICT DO NOTHING",
        (INDEX_VERSION, SHARED_PART),
    )


def claim_parts(conn: DbConn) -> dict[str, str]:
    """The index part of every claim (read in one statement, for a rebuild)."""
    rows = conn.execute("SELECT id, scope, owner FROM memories")
    return {str(row[0]): index_part(str(row[1]), str(row[2])) for row in rows}


def rebuild_index(conn: DbConn, memories: Iterable[Memory], parts: dict[str, str] | None = None) -> int:
    """Re-derive every posting from ``memories`` (inside a transaction), each in its part of
    ``parts`` (default: :func:`claim_parts`); returns claims indexed.

    Needed only after :data:`INDEX_VERSION` changes; ordinary writes keep the index current.
    The caller reads the claim rows (:meth:`Store.refresh_recall_index`), so the index never
    depends on how they are stored.
    """
    conn.execute("DELETE FROM postings")
    conn.execute("DELETE FROM index_docs")
    conn.execute("DELETE FROM body_postings")
    conn.execute("DELETE FROM bodies")
    _write_version(conn)
    if parts is None:
        parts = claim_parts(conn)
    count = 0
    for memory in memories:
        update_postings(conn, memory, parts.get(memory.id, ""))
        count += is_recallable(memory)
    return count
