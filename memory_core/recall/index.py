"""The read side of the persisted recall index (layout: :mod:`memory_core.store.tables.postings`).

Lists of a feature and the counts are read from the parts the current person may see
(:func:`memory_core.store.tables.index_parts.part_filter`), counts summed over them; what is read by
body or claim id comes from those lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from memory_core.store.engines.connection import in_chunks
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.index_parts import part_filter
from memory_core.store.tables.postings import BODY_HEADER, DOC_COLUMNS, HEADER, ORIGIN_FIELD_PREFIX

# Bodies per statement of :func:`read_first_claims` (SQLite allows 500 terms in a compound select).
FIRST_CLAIMS_CHUNK = 200
# Claims the bodies of one :func:`read_first_claims` call may hold together and still be read
# by one ``IN`` statement, which reads every one of them (a compound select of one bounded
# sub-select per body reads at most ``count`` of each, but costs a statement far longer to
# prepare, in every process).
FIRST_CLAIMS_SCAN = 512


# ``pinned``: 0 or 1, as stored
class IndexedDoc(
    NamedTuple(
        "IndexedDoc",
        [
            ("memory_id", str),
            ("origin", str),
            ("kind", str),
            ("content_hash", str),
            ("updated_at", float),
            ("clock_at", float),
            ("pinned", int),
            ("priority", int),
            ("basis", str | None),
            ("method", str | None),
            ("utility", str | None),
            ("accuracy", str | None),
            ("feature_count", int),
        ],
    )
):
    """The ranking facts of one indexed claim."""

    __slots__ = ()


class Headers(
    NamedTuple(
        "Headers", [("total", int), ("document_frequency", dict[str, int]), ("origins", dict[str, tuple[str, ...]])]
    )
):
    """Collection statistics for a set of query features."""

    __slots__ = ()


def read_headers(conn: DbConn, features: Sequence[str]) -> Headers:
    """Indexed-claim count, document frequencies and matching origins of ``features``."""
    parts, visible = part_filter(conn)
    rows = conn.execute(f"SELECT tf FROM postings WHERE feature='' AND memory_id='' AND field=''{parts}", visible)
    total = sum(int(row[0]) for row in rows)
    frequency: dict[str, int] = {}
    origins: dict[str, dict[str, None]] = {}
    wanted = [f for f in dict.fromkeys(features) if f]
    for marks, chunk in in_chunks(wanted):
        for feature, field, tf in conn.execute(
            f"SELECT feature, field, tf FROM postings WHERE memory_id='' AND feature IN ({marks}){parts}",
            (*chunk, *visible),
        ):
            if field == HEADER:
                frequency[feature] = frequency.get(feature, 0) + int(tf)
            elif field.startswith(ORIGIN_FIELD_PREFIX):
                origins.setdefault(feature, {})[field[len(ORIGIN_FIELD_PREFIX) :]] = None
    return Headers(total, frequency, {f: tuple(o) for f, o in origins.items()})


def read_posting_list(conn: DbConn, feature: str) -> list[tuple[str, str]]:
    """Every (claim id, field) holding ``feature``."""
    parts, visible = part_filter(conn)
    return conn.execute(
        f"SELECT memory_id, field FROM postings WHERE feature=? AND memory_id > ''{parts}", (feature, *visible)
    ).fetchall()


def read_recent_postings(conn: DbConn, feature: str, claims: int) -> list[tuple[str, str]]:
    """The (claim id, field) pairs of ``feature`` in its ``claims`` most recently updated
    claims (ties in id order), read newest first through ``postings_recent``."""
    parts, visible = part_filter(conn)
    rows = conn.execute(
        "SELECT memory_id, field FROM postings INDEXED BY postings_recent "
        f"WHERE feature=? AND memory_id > ''{parts} ORDER BY recency DESC, memory_id, field",
        (feature, *visible),
    )
    return _first_ids(rows, claims)


def probe_postings(conn: DbConn, feature: str, memory_ids: Sequence[str]) -> list[tuple[str, str]]:
    """The (claim id, field) pairs of ``feature`` among ``memory_ids`` (point lookups)."""
    sql = "SELECT memory_id, field FROM postings WHERE feature=? AND memory_id IN ({})"
    return _probe(conn, sql, feature, memory_ids)


def read_docs(conn: DbConn, memory_ids: Sequence[str]) -> dict[str, IndexedDoc]:
    """The ranking facts of the given indexed claims."""
    docs: dict[str, IndexedDoc] = {}
    parts, visible = part_filter(conn)
    for marks, chunk in in_chunks(memory_ids):
        make = IndexedDoc._make
        for row in conn.execute(
            f"SELECT {DOC_COLUMNS} FROM index_docs WHERE memory_id IN ({marks}){parts}", (*chunk, *visible)
        ):
            docs[row[0]] = make(row)
    return docs


# Bodies (claims with the same indexed fields, see memory_core.store.tables.postings): their ids are
# read as text, like claim ids, so the candidate machinery serves both.


def read_body_total(conn: DbConn) -> int:
    """How many bodies (distinct indexed contents) there are."""
    parts, visible = part_filter(conn)
    rows = conn.execute(
        f"SELECT tf FROM body_postings WHERE feature='' AND body={BODY_HEADER} AND field=''{parts}", visible
    )
    return sum(int(row[0]) for row in rows)


def read_body_counts(conn: DbConn, features: Sequence[str]) -> dict[str, int]:
    """How many bodies hold each of ``features``."""
    counts: dict[str, int] = {}
    parts, visible = part_filter(conn)
    wanted = [f for f in dict.fromkeys(features) if f]
    for marks, chunk in in_chunks(wanted):
        for feature, tf in conn.execute(
            f"SELECT feature, tf FROM body_postings WHERE body={BODY_HEADER} AND field='' AND feature IN ({marks})"
            + parts,
            (*chunk, *visible),
        ):
            counts[feature] = counts.get(feature, 0) + int(tf)
    return counts


def read_body_list(conn: DbConn, feature: str) -> list[tuple[str, str]]:
    """Every (body id, field) holding ``feature``."""
    parts, visible = part_filter(conn)
    return conn.execute(
        f"SELECT CAST(body AS TEXT), field FROM body_postings WHERE feature=? AND body > {BODY_HEADER}{parts}",
        (feature, *visible),
    ).fetchall()


def read_recent_bodies(conn: DbConn, feature: str, bodies: int) -> list[tuple[str, str]]:
    """The (body id, field) pairs of ``feature`` in its ``bodies`` most recently created bodies."""
    parts, visible = part_filter(conn)
    rows = conn.execute(
        f"SELECT CAST(body AS TEXT), field FROM body_postings WHERE feature=? AND body > {BODY_HEADER}{parts} "
        "ORDER BY body DESC",
        (feature, *visible),
    )
    return _first_ids(rows, bodies)


def probe_bodies(conn: DbConn, feature: str, bodies: Sequence[str]) -> list[tuple[str, str]]:
    """The (body id, field) pairs of ``feature`` among ``bodies`` (point lookups)."""
    return _probe(
        conn, "SELECT CAST(body AS TEXT), field FROM body_postings WHERE feature=? AND body IN ({})", feature, bodies
    )


def read_body_sizes(conn: DbConn, bodies: Sequence[str]) -> dict[str, tuple[int, int]]:
    """(claims holding it, body feature count) of each of ``bodies``."""
    sizes: dict[str, tuple[int, int]] = {}
    for marks, chunk in in_chunks(bodies):
        for body, claims, count in conn.execute(
            f"SELECT CAST(id AS TEXT), claims, feature_count FROM bodies WHERE id IN ({marks})", chunk
        ):
            sizes[body] = (int(claims), int(count))
    return sizes


def read_grades(conn: DbConn, body: str) -> list[tuple[str, int]]:
    """The distinct (kind, grade) pairs of a body's claims, one index seek each."""
    found: list[tuple[str, int]] = []
    last: tuple[str, int] = ("", -1)
    while True:
        row = conn.execute(
            "SELECT kind, grade FROM index_docs INDEXED BY index_docs_rank "
            "WHERE body=? AND (kind, grade) > (?, ?) ORDER BY kind, grade LIMIT 1",
            (body, *last),
        ).fetchone()
        if row is None:
            return found
        last = (row[0], int(row[1]))
        found.append(last)


def read_ranked(conn: DbConn, body: str, kind: str, grade: int, offset: int, count: int) -> list[IndexedDoc]:
    """Claims of one body, kind and grade, newest clock first (ties in id order)."""
    make = IndexedDoc._make
    return [
        make(row)
        for row in conn.execute(
            f"SELECT {DOC_COLUMNS} FROM index_docs INDEXED BY index_docs_rank WHERE body=? AND kind=? AND grade=? "
            "ORDER BY clock_at DESC, memory_id LIMIT ? OFFSET ?",
            (body, kind, grade, count, offset),
        )
    ]


def read_origin_docs(conn: DbConn, bodies: Sequence[str], origin: str) -> list[tuple[str, IndexedDoc]]:
    """(body id, ranking facts) of the claims of ``origin`` holding one of ``bodies``."""
    found: list[tuple[str, IndexedDoc]] = []
    make = IndexedDoc._make
    for marks, chunk in in_chunks(bodies):
        for row in conn.execute(
            f"SELECT CAST(body AS TEXT), {DOC_COLUMNS} FROM index_docs INDEXED BY index_docs_origin "
            f"WHERE body IN ({marks}) AND origin=?",
            (*chunk, origin),
        ):
            found.append((row[0], make(row[1:])))
    return found


def read_clear_origins(
    conn: DbConn, bodies: Sequence[str], most: int, now: float, horizons: dict[str, float] | None
) -> set[str]:
    """Origins whose claims holding one of ``bodies`` have at most ``most`` distinct contents,
    counting only awake claims when ``horizons`` (days, per kind) are given: one aggregate over
    an index, so an origin that is read no further is known to hold more."""
    args: list[object] = list(bodies)
    awake = ""
    if horizons is not None:
        cases = " ".join("WHEN ? THEN ?" for _ in horizons)
        awake = f" AND (pinned = 1 OR (? - clock_at) / 86400.0 <= CASE kind {cases} END)"
        args.append(now)
        for kind, days in horizons.items():
            args += [kind, days]
    args.append(most)
    marks = ",".join("?" * len(bodies))
    return {
        row[0]
        for row in conn.execute(
            f"SELECT origin FROM index_docs INDEXED BY index_docs_origin WHERE body IN ({marks}){awake} "
            "GROUP BY origin HAVING COUNT(DISTINCT content_hash) <= ?",
            args,
        )
    }


def read_first_claims(
    conn: DbConn, bodies: Sequence[str], count: int, held: int | None = None
) -> list[tuple[str, IndexedDoc]]:
    """(body id, ranking facts) of the ``count`` claims with the smallest ids holding one of
    ``bodies``: at most ``count`` of each body, in id order through ``index_docs_body``.
    ``held``: how many claims the bodies hold together, when known; up to
    ``FIRST_CLAIMS_SCAN`` they are read by one ``IN`` statement."""
    make = IndexedDoc._make
    found: list[tuple[str, IndexedDoc]] = []
    if held is not None and held <= FIRST_CLAIMS_SCAN:
        for marks, chunk in in_chunks(bodies):
            found += [
                (row[0], make(row[1:]))
                for row in conn.execute(
                    f"SELECT CAST(body AS TEXT), {DOC_COLUMNS} FROM index_docs INDEXED BY index_docs_body "
                    f"WHERE body IN ({marks}) ORDER BY memory_id LIMIT ?",
                    (*chunk, count),
                )
            ]
    else:
        term = (
            f"SELECT * FROM (SELECT CAST(body AS TEXT), {DOC_COLUMNS} FROM index_docs INDEXED BY index_docs_body "
            "WHERE body=? ORDER BY memory_id LIMIT ?) AS first_claims"
        )
        for start in range(0, len(bodies), FIRST_CLAIMS_CHUNK):
            chunk = bodies[start : start + FIRST_CLAIMS_CHUNK]
            args = [value for body in chunk for value in (body, count)]
            sql = " UNION ALL ".join([term] * len(chunk)) + " ORDER BY 2 LIMIT ?"
            found += [(row[0], make(row[1:])) for row in conn.execute(sql, (*args, count))]
    found.sort(key=lambda pair: pair[1].memory_id)
    return found[:count]


def read_claim_body(conn: DbConn, memory_id: str) -> tuple[str, IndexedDoc] | None:
    """(body id, ranking facts) of one indexed claim."""
    parts, visible = part_filter(conn)
    row = conn.execute(
        f"SELECT CAST(body AS TEXT), {DOC_COLUMNS} FROM index_docs WHERE memory_id=?{parts}", (memory_id, *visible)
    ).fetchone()
    return None if row is None else (row[0], IndexedDoc._make(row[1:]))


def read_body_claims(conn: DbConn, bodies: Sequence[str]) -> list[tuple[str, IndexedDoc]]:
    """(body id, ranking facts) of every claim holding one of ``bodies``."""
    make = IndexedDoc._make
    found: list[tuple[str, IndexedDoc]] = []
    for marks, chunk in in_chunks(bodies):
        for row in conn.execute(
            f"SELECT CAST(body AS TEXT), {DOC_COLUMNS} FROM index_docs INDEXED BY index_docs_body "
            f"WHERE body IN ({marks})",
            chunk,
        ):
            found.append((row[0], make(row[1:])))
    return found


def _first_ids(rows: Iterable[tuple[str, str]], ids: int) -> list[tuple[str, str]]:
    """The (id, field) pairs of ``rows`` (grouped by id) up to the first ``ids`` distinct ids."""
    found: list[tuple[str, str]] = []
    seen = 0
    last = ""
    for row_id, field in rows:
        if row_id != last:
            if seen == ids:
                break
            seen += 1
            last = row_id
        found.append((row_id, field))
    return found


def _probe(conn: DbConn, sql: str, feature: str, ids: Sequence[str]) -> list[tuple[str, str]]:
    """Point lookups of ``feature`` among ``ids``, in chunks: ``sql`` has one ``{}`` for the
    marks; only rows of the visible parts."""
    parts, visible = part_filter(conn)
    found: list[tuple[str, str]] = []
    for marks, chunk in in_chunks(ids):
        found.extend(conn.execute(sql.format(marks) + parts, (feature, *chunk, *visible)))
    return found
