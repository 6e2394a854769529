"""Claims dated within the time a question names.

A claim's date is its last change (``updated_at``): when it was said, or last restated.
A question naming a time (:mod:`memory_core.text.time_anchor`) is answered in one of two ways:

- **Only the time** ("what did I do yesterday?", "what have we been working on lately?",
  上周我们干了啥？): the claims dated within it are the answer, newest first, one of each
  content, dormant ones too (the question asks about that time: age is no reason to hide
  what was said then). :func:`read_dated` reads them; no word needs to match.
- **A subject at a time** ("what did we decide about the cache yesterday?", "what setback did
  Melanie face in October 2023?"): recall answers the words as always, then :func:`prefer`
  keeps the chosen claims dated within the time, if any is; if none is but a claim that
  passed every relevance gate and lost only in selection (a better match elsewhere, the
  relative cutoff, its age) is dated within it, that claim answers instead. A claim dated
  elsewhere can still state the time asked ("last year we went camping"), so when nothing
  of that time answers, the choice stands.
"""

from __future__ import annotations

from memory_core.recall.index import IndexedDoc, read_docs
from memory_core.recall.rank import RELATIVE_CUTOFF, Candidate
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.index_parts import part_filter

# Claims read from a span, newest first, before those of the same content are folded: a
# bound on what a question about a busy year reads.
MAX_READ = 256
# Selection steps a claim dated within the time may have lost at, and still answer: it
# passed every relevance gate.
# "ambiguous": more claims tied on the question's words than it could tell apart; the date
# tells them apart.
SPARE_REASONS = frozenset({"below_relative_cutoff", "redundant_facet", "over_limit", "dormant", "ambiguous"})


def within(doc: IndexedDoc, bounds: tuple[float, float]) -> bool:
    """True when ``doc`` was last changed within ``bounds`` (start inclusive, end exclusive)."""
    return bounds[0] <= doc.updated_at < bounds[1]


def read_dated(
    conn: DbConn, bounds: tuple[float, float], limit: int, target: float | None = None
) -> tuple[list[IndexedDoc], int]:
    """The indexed claims last changed within ``bounds``, newest first (or nearest ``target``
    first: "about two months ago" means that day best), one of each content (at most
    ``limit``), and how many claims the span holds as far as it was read."""
    parts, visible = part_filter(conn)
    rows = conn.execute(
        f"SELECT memory_id FROM index_docs WHERE updated_at >= ? AND updated_at < ?{parts} "
        "ORDER BY updated_at DESC, memory_id LIMIT ?",
        (bounds[0], bounds[1], *visible, MAX_READ),
    ).fetchall()
    ids = [row[0] for row in rows]
    docs = read_docs(conn, ids)
    if target is not None:
        ids.sort(key=lambda m: abs(docs[m].updated_at - target) if m in docs else float("inf"))
    seen: set[str] = set()
    found: list[IndexedDoc] = []
    for memory_id in ids:
        doc = docs.get(memory_id)
        if doc is None or doc.content_hash in seen:
            continue
        seen.add(doc.content_hash)
        found.append(doc)
        if len(found) >= limit:
            break
    return found, len(ids)


def prefer(
    chosen: list[Candidate], candidates: list[Candidate], bounds: tuple[float, float], limit: int
) -> tuple[list[Candidate], list[Candidate]]:
    """The chosen claims dated within ``bounds`` if any is; else the best spare claims dated
    within it (passed every gate, lost only in selection), if any; else ``chosen`` as it is.
    Returns what is chosen and the claims that now answer in place of others (to be aged
    and ranked as chosen); every claim passed over for its date is marked ``outside_window``."""
    inside = [c for c in chosen if within(c.doc, bounds)]
    if not inside:
        spare = [c for c in candidates if c.excluded in SPARE_REASONS and within(c.doc, bounds)]
        if not spare:
            return chosen, []
        spare.sort(key=lambda c: (-c.raw, c.doc.memory_id))
        # The relative cutoff among them: a claim of that time matching far less than the
        # best one of that time is no better an answer there than elsewhere.
        inside = [c for c in spare if c.raw >= RELATIVE_CUTOFF * spare[0].raw][:limit]
        for c in chosen:
            c.excluded = "outside_window"
        return inside, inside
    kept = {id(c) for c in inside}
    for c in chosen:
        if id(c) not in kept:
            c.excluded = "outside_window"
    return inside, []
