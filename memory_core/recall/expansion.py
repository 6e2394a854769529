"""Automatic recall over bodies: each distinct indexed content scored once, then only as many
of the claims repeating it read as the choice needs.

Claims whose indexed fields are the same share one body (:mod:`memory_core.store.tables.postings`)
and so the same raw relevance, unless a query word matches their origin's name (then this
path is not taken). So the gates, the best raw relevance and the relative cutoff are worked
out on bodies, best-first with the same stopping proof as for claims, and the result is the
*band*: the bodies within the cutoff of the best one that has an awake claim.

Which claims of the band are chosen depends on each claim's rank (its body's relevance times
freshness, evidence, feedback), on duplicates, facets and ambiguity *within its origin*.
Claims of one body, kind and grade (pin, evidence priority, feedback) rank in the order of
their clocks, so their rank order is read from an index, newest clock first, a page at a
time (:class:`ClaimStream`); merging those streams gives every awake claim of the band in exact
rank order without reading the rest. Each origin met that way is read whole (its claims of
the band's bodies), and :func:`~memory_core.recall.rank.select` runs on the origins read:
once it chooses ``limit`` claims among those already met, nothing later in the order could
change the choice (a later claim ranks lower, and what decides about a claim met so far
depends only on its own origin, which is read whole). The result is what scoring every
claim would give; the hypothesis test in ``tests/recall/test_pruning_exact.py`` checks it.
"""

from __future__ import annotations

from bisect import insort
from typing import NamedTuple

from memory_core.recall import index
from memory_core.recall.aging import POLICIES
from memory_core.recall.body_claims import BodyStreams, ClaimStream
from memory_core.recall.candidates import BODY_LISTS, BestFirst, Retrieval, complete, plan_features, retrieve
from memory_core.recall.index import Headers, IndexedDoc
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.query_units import choice_groups
from memory_core.recall.rank import MAX_EQUALLY_RELEVANT, RELATIVE_CUTOFF, Candidate, select
from memory_core.recall.scoring import FIELD_BITS, Evaluation, length_factor
from memory_core.store.engines.dbapi import DbConn

# Claims of the band read at most before the choice is given up as unproven (``truncated``).
MAX_EXPANDED = 4096
# Past this many claims read, the origins that can still offer one are counted in one
# aggregate (:func:`~memory_core.recall.index.read_clear_origins`), and the claims of the
# others are passed over unread; when at most CLOSE_CLEAR origins are left, they are read
# whole and the choice is made: a question over many origins, each ambiguous, stops there.
COUNT_AFTER = 64
CLOSE_CLEAR = 64
HORIZONS = {kind: policy.dormant_after_days for kind, policy in POLICIES.items()}
# Equal ranks computed from different clocks may differ in their last bits: such near ties are
# read together and put in order by the full sort key.
TIE_MARGIN = 1e-9


# ``anchors``: when no claim passed, the best rejected claims that failed only on coverage or
# on matching too few words, for the engine's pairing of two claims.
class BodyOutcome(
    NamedTuple(
        "BodyOutcome",
        [
            ("retrieval", Retrieval),
            ("candidates", list[Candidate]),
            ("chosen", list[Candidate]),
            ("matched", int),
            ("scored", int),
            ("truncated", bool),
            ("anchors", list[Candidate]),
            ("revealed", str | None),
        ],
    )
):
    """What the body path found; ``retrieval`` is claim-level, for complementary evidence."""

    __slots__ = ()


def _candidate(doc: IndexedDoc, raw: float, e: Evaluation) -> Candidate:
    return Candidate(
        doc, raw, e.matched, e.context_matched, e.reason, e.alternatives, e.complete, coverage=e.coverage, firm=e.firm
    )


def evaluate(
    conn: DbConn,
    plan: QueryPlan,
    headers: Headers,
    *,
    now: float,
    limit: int,
    include_dormant: bool,
    first_batch: int,
    max_scored: int,
    rejects_kept: int,
    anchors_tried: int,
    anchor_reasons: frozenset[str],
    force: str | None = None,
) -> BodyOutcome | None:
    """Automatic recall for ``plan`` over bodies, or ``None`` where the claim path must answer:
    a query word some origin's name carries, no repeated content in the store, or more
    candidate bodies than ``max_scored`` to score."""
    if plan.is_empty:
        return None
    features = plan_features(plan)
    if headers.total == 0 or any(f in headers.origins for f in features):
        return None
    if index.read_body_total(conn) >= headers.total:
        return None  # every claim has a body of its own: nothing to share
    lengths = index.read_body_counts(conn, features)
    r = retrieve(conn, plan, headers=headers, lists=BODY_LISTS, lengths=lengths)
    # With alternatives the cutoff is per alternative, and an unscored body may be about one
    # nothing scored yet speaks to: every candidate body is scored (as for claims).
    grouped = bool(choice_groups(plan.focus))
    bodies = BodyStreams(conn, now, include_dormant)
    passing: dict[str, tuple[float, Evaluation]] = {}
    failed: list[tuple[float, str, Evaluation]] = []
    sizes: dict[str, tuple[int, int]] = {}
    best: dict[tuple[int, ...], float] = {}
    order = r.order
    done, size = 0, first_batch
    while done < len(order):
        if done >= max_scored:
            return None
        batch = order[done : min(done + size, max_scored)]
        complete(conn, r, batch)
        sizes.update(index.read_body_sizes(conn, batch))
        new: list[tuple[float, str]] = []
        for body in batch:
            if body not in sizes:
                continue  # its last claim went since its postings were read
            e = r.judge(r.masks[body])
            raw = length_factor(sizes[body][1]) * e.raw
            if e.reason is None:
                passing[body] = (raw, e)
                new.append((raw, body))
            else:
                failed.append((raw, body, e))
        bodies.prefetch({body: raw for raw, body in new if sizes[body][0] == 1})
        # The best relevance of an awake claim, per alternative: only bodies that would raise
        # it need to show an awake claim.
        for raw, body in sorted(new, key=lambda x: (-x[0], x[1])):
            key = passing[body][1].alternatives
            if raw > best.get(key, -1.0) and bodies.awake(body, raw):
                best[key] = raw
        done += len(batch)
        size *= 4
        if done < len(order) and not grouped and best:
            margin = 1 + TIE_MARGIN  # the bound sums in another order than the exact score
            if (r.upper[order[done]] + r.slack) * margin < RELATIVE_CUTOFF * best[()]:
                break
    # Rejected claims as the claim path orders them: bare relevance (no length factor), then id.
    failed.sort(key=lambda x: (-x[2].raw, x[1]))
    rejects = _first_claims(conn, failed, sizes, max(rejects_kept, anchors_tried))
    claims = Retrieval(r.headers, r.scorer, {}, BestFirst({}), {}, (), 0.0, r.patterns, {})
    anchors = [c for c in rejects[:anchors_tried] if c.excluded in anchor_reasons] if not best else []
    rejects = rejects[:rejects_kept]
    body_of: dict[str, str] = {}
    walk = None
    pool: list[Candidate] = []
    chosen: list[Candidate] = []
    truncated = False
    if best:
        band = {
            b: (raw, e)
            for b, (raw, e) in passing.items()
            if e.alternatives in best and not raw < RELATIVE_CUTOFF * best[e.alternatives]
        }
        walk = _Walk(conn, bodies, band, body_of)
        for key, raw in best.items():
            walk.close_best(key, raw)
        pool, chosen, truncated = walk.run(limit)
    # A claim judged only because ``explain --claim`` named it: not one recall itself ranks.
    revealed = None
    if force is not None and all(c.doc.memory_id != force for c in (*pool, *rejects)):
        pool, chosen = _reveal(conn, r, claims, bodies, walk, pool, force, limit=limit)
        revealed = force
    for memory_id, body in body_of.items():
        claims.masks[memory_id] = dict(r.masks[body])
    return BodyOutcome(
        claims, pool + rejects, chosen, len(r.masks), done + len(walk.met if walk else ()), truncated, anchors, revealed
    )


def _reveal(
    conn: DbConn,
    r: Retrieval,
    claims: Retrieval,
    bodies: BodyStreams,
    walk: _Walk | None,
    pool: list[Candidate],
    force: str,
    *,
    limit: int,
) -> tuple[list[Candidate], list[Candidate]]:
    """``pool`` and the choice again, with a verdict on claim ``force`` (``explain --claim``).

    A claim of the band is judged with its whole origin read: the choice stays the same, since
    the walk stopped where nothing after it could change it. Any other claim is judged on its
    own postings: a gate, the relative cutoff or dormancy drops it, or its body was in no list
    read (``not_read``), and the choice stays the same too.
    """
    found = index.read_claim_body(conn, force)
    if found is None:
        return pool, [c for c in pool if c.excluded is None]
    body, doc = found
    if walk is not None and body in walk.band:
        walk.close(doc.origin)
        return walk.choose(limit)
    if body in r.masks:
        complete(conn, r, [body])
        masks = dict(r.masks[body])
    else:
        masks = {}
        for feature, df in r.headers.document_frequency.items():
            if df > 0 and feature in r.scorer.weights:
                for _, field in index.probe_postings(conn, feature, [force]):
                    masks[feature] = masks.get(feature, 0) | FIELD_BITS[field]
    e = r.judge(masks)
    c = _candidate(doc, length_factor(doc.feature_count) * e.raw, e)
    if c.excluded is None and body not in r.masks:
        c.excluded = "not_read"  # only the most recent bodies of a very long list were read
    claims.masks[force] = masks
    if walk is None:  # nothing passed awake: selection only ages it
        select([c], now=bodies.now, limit=limit, include_dormant=bodies.include_dormant)
        return [*pool, c], []
    walk.extra.append(c)
    return walk.choose(limit)


def _first_claims(
    conn: DbConn, failed: list[tuple[float, str, Evaluation]], sizes: dict[str, tuple[int, int]], count: int
) -> list[Candidate]:
    """The first ``count`` claims of the rejected bodies (in their order, ties in claim id order);
    ``sizes``: each body's claim count and feature count."""
    found: list[Candidate] = []
    n = 0
    while n < len(failed) and len(found) < count:
        bare = failed[n][2].raw
        tied = [n]
        while n + len(tied) < len(failed) and failed[n + len(tied)][2].raw == bare:
            tied.append(n + len(tied))
        n += len(tied)
        by_body = {failed[i][1]: failed[i] for i in tied}
        held = sum(sizes[body][0] for body in by_body)
        for body, doc in index.read_first_claims(conn, list(by_body), count - len(found), held):
            raw, _, e = by_body[body]
            found.append(_candidate(doc, raw, e))
    return found


class _Walk:
    """The band's awake claims in rank order, as far as the choice needs (see the module doc)."""

    def __init__(
        self,
        conn: DbConn,
        bodies: BodyStreams,
        band: dict[str, tuple[float, Evaluation]],
        body_of: dict[str, str],
    ) -> None:
        self.conn, self.bodies, self.band, self.body_of = conn, bodies, band, body_of
        self.members = sorted(band)
        self.closed: dict[str, list[Candidate]] = {}
        # A claim judged for explain that selection must see as well (see :func:`_reveal`).
        self.extra: list[Candidate] = []
        self.met: set[str] = set()
        # Per alternative, the origins that may offer a claim (not ambiguous), once counted.
        self.clear: dict[tuple[int, ...], set[str]] | None = None
        # Streams by the rank of their next claim, best first (a sorted list: there are few).
        self.queue: list[tuple[float, int, ClaimStream]] = []
        for body in self.members:
            for stream in bodies.open(body, band[body][0]):
                rank = stream.head()
                if rank is not None:
                    self.queue.append((-rank, len(self.queue), stream))
        self.queue.sort()
        self.seq = len(self.queue)

    def close(self, origin: str) -> None:
        """Read every claim of the band's bodies in ``origin``: selection judges an origin whole."""
        if origin in self.closed:
            return
        found = []
        for body, doc in index.read_origin_docs(self.conn, self.members, origin):
            raw, e = self.band[body]
            found.append(_candidate(doc, raw, e))
            self.body_of[doc.memory_id] = body
        self.closed[origin] = found

    def close_best(self, key: tuple[int, ...], raw: float) -> None:
        """Selection must see the best relevance of each alternative: an awake claim of it."""
        for body in self.members:
            b_raw, e = self.band[body]
            if e.alternatives == key and b_raw == raw and self.bodies.awake(body, raw):
                stream = next(s for s in self.bodies.open(body, raw) if s.head() is not None)
                self.close(stream.rows[stream.pos][1].origin)
                return

    def _count(self) -> None:
        """Which origins hold few enough distinct contents of each alternative to offer one."""
        keys: dict[tuple[int, ...], list[str]] = {}
        for body in self.members:
            keys.setdefault(self.band[body][1].alternatives, []).append(body)
        horizons = None if self.bodies.include_dormant else HORIZONS
        self.clear = {
            key: index.read_clear_origins(self.conn, members, MAX_EQUALLY_RELEVANT, self.bodies.now, horizons)
            for key, members in keys.items()
        }

    def _viable(self, body: str, origin: str) -> bool:
        return self.clear is None or origin in self.clear.get(self.band[body][1].alternatives, ())

    def run(self, limit: int) -> tuple[list[Candidate], list[Candidate], bool]:
        checked = 0
        queue = self.queue
        while True:
            exhausted = not queue
            if not exhausted:
                floor = -queue[0][0] * (1 - TIE_MARGIN)
                streams = []
                while queue and -queue[0][0] >= floor:
                    streams.append(queue.pop(0)[2])
                for s in streams:
                    for doc in s.take_from(floor):
                        self.met.add(doc.memory_id)
                        # A claim of an origin too ambiguous to offer anything is not read
                        # further: selection would drop it with its whole origin.
                        if self._viable(s.body, doc.origin):
                            self.close(doc.origin)
                    rank = s.head()
                    if rank is not None:
                        insort(queue, (-rank, self.seq, s))
                        self.seq += 1
                if self.clear is None and len(self.met) > COUNT_AFTER:
                    self._count()
                    assert self.clear is not None
                    clear = sorted(set().union(*self.clear.values()))
                    if len(clear) <= CLOSE_CLEAR:
                        # Few origins can offer a claim (often none): read them whole and stop,
                        # since every claim of the others is dropped as ambiguous.
                        for origin in clear:
                            self.close(origin)
                        exhausted = True
            truncated = not exhausted and len(self.met) > MAX_EXPANDED
            if exhausted or truncated or (len(self.met) >= limit and len(self.met) >= 2 * checked):
                checked = len(self.met)
                candidates, chosen = self.choose(limit)
                if exhausted or truncated or (len(chosen) == limit and chosen[-1].doc.memory_id in self.met):
                    return candidates, chosen, truncated

    def choose(self, limit: int) -> tuple[list[Candidate], list[Candidate]]:
        """Selection over the origins read so far (each whole)."""
        candidates = [c for found in self.closed.values() for c in found]
        for c in candidates:
            c.excluded = None
        candidates += self.extra
        chosen = select(candidates, now=self.bodies.now, limit=limit, include_dormant=self.bodies.include_dormant)
        return candidates, chosen
