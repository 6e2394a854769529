"""Which existing claims a source may replace: the ones it mentions.

The host measures mentions with the recall tokenizer's features (shared features between
the source text and a claim's body and aliases), within the source's own project only (its
origin and the path origins recorded as its aliases, memory_core.store.tables.origin_aliases),
dormant claims included, then keeps the 32 most recently updated. A ``progress`` source
instead gets the project states nominated when it was captured
(:mod:`memory_core.capture.work.progress_targets`), each followed along its replacement chain to
the state holding its place now, those active, unpinned and of its project.

Only claims the current person may see are offered (their own and the team's shared ones,
memory_core.store.schema.owners.visible_clause): a worker's model never reads another member's
personal claims, nor confirms or replaces them.
"""

from __future__ import annotations

from memory_core.records import Memory, Source
from memory_core.store.engines.connection import in_chunks
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import visible_clause
from memory_core.store.tables.memories import memory_from_row
from memory_core.store.tables.origin_aliases import project_origins
from memory_core.store.tables.replacements import current_claim
from memory_core.text.tokenize import features

CANDIDATE_LIMIT = 32
# A claim counts as mentioned when it shares this many distinct informative features with
# the source (or all of them, for a claim with fewer) and the shared ones cover at least
# this share of the claim's own informative features: two common words in passing are
# not a mention.
MIN_SHARED_FEATURES = 2
MIN_COVERAGE = 0.5


def _informative(feature: str) -> bool:
    # Short ASCII tokens ("is", "to", "v2") match almost everything; CJK bigrams carry meaning.
    return len(feature) >= 3 or not feature.isascii()


def mentioned_claims(conn: DbConn, source: Source, limit: int = CANDIDATE_LIMIT) -> list[Memory]:
    """Active claims of the source's project that the source mentions, newest first."""
    if source.source_type == "progress":
        return nominated_claims(conn, source)
    wanted = sorted(f for f in features(source.text) if _informative(f))
    origins = project_origins(conn, source.origin)
    origin_marks = ",".join("?" * len(origins))
    visible, owners = visible_clause(conn, "m")
    shared: dict[str, int] = {}
    for marks, chunk in in_chunks(wanted):
        for memory_id, n in conn.execute(
            f"SELECT p.memory_id, COUNT(DISTINCT p.feature) FROM postings p "
            f"JOIN memories m ON m.id = p.memory_id "
            f"WHERE m.origin IN ({origin_marks}) AND m.status = 'active' AND p.feature IN ({marks}){visible} "
            f"GROUP BY p.memory_id",
            (*origins, *chunk, *owners),
        ):
            shared[memory_id] = shared.get(memory_id, 0) + int(n)
    if not shared:
        return []
    sizes = _informative_sizes(conn, list(shared))
    qualified = [
        mid
        for mid, n in shared.items()
        if n >= min(MIN_SHARED_FEATURES, sizes.get(mid, 0) or 1) and n >= MIN_COVERAGE * sizes.get(mid, 0)
    ]
    return _load_newest(conn, qualified, limit)


def _informative_sizes(conn: DbConn, ids: list[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for marks, chunk in in_chunks(ids):
        for memory_id, feature in conn.execute(
            f"SELECT DISTINCT memory_id, feature FROM postings WHERE memory_id IN ({marks})", chunk
        ):
            if _informative(feature):
                sizes[memory_id] = sizes.get(memory_id, 0) + 1
    return sizes


def _load_newest(conn: DbConn, ids: list[str], limit: int) -> list[Memory]:
    rows: list[tuple] = []
    for marks, chunk in in_chunks(ids):
        rows.extend(conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({marks})", chunk))
    rows.sort(key=lambda r: (r[5], r[0]), reverse=True)
    return [memory_from_row(row) for row in rows[:limit]]


def nominated_claims(conn: DbConn, source: Source) -> list[Memory]:
    """The project states a progress source may update: for each nominated id, the state
    holding its place now (:func:`~memory_core.store.tables.replacements.current_claim`), when it is
    active, unpinned, of the source's project and, if an earlier turn moved it on after the
    capture, not based on evidence newer than the source (the source has nothing newer to say
    about it). In nomination order, each state once."""
    claims: list[Memory] = []
    for target in source.target_ids:
        current = current_claim(conn, target)
        if current is None or any(m.id == current.id for m in claims):
            continue
        if current.id != target and _evidence_at(current) > source.created_at:
            continue
        claims.append(current)
    origins = project_origins(conn, source.origin)
    eligible = [
        m for m in claims if m.status == "active" and not m.pinned and m.kind == "project_state" and m.origin in origins
    ]
    visible = _visible_ids(conn, [m.id for m in eligible])
    return [m for m in eligible if m.id in visible]


def _visible_ids(conn: DbConn, ids: list[str]) -> set[str]:
    """Those of ``ids`` the current person may see: a replacement chain may lead from a
    nominated state to another member's personal claim."""
    mine, owners = visible_clause(conn)
    if not mine:
        return set(ids)
    found: set[str] = set()
    for marks, chunk in in_chunks(ids):
        found.update(
            str(row[0])
            for row in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks}){mine}", (*chunk, *owners))
        )
    return found


def _evidence_at(memory: Memory) -> float:
    return memory.evidence.at if memory.evidence is not None else memory.updated_at
