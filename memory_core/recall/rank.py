"""Ordering the claims that passed the relevance gates, and choosing the few to offer.

Relevance comes first: the relative cutoff compares *raw* relevance (among the claims about
the same alternative, when a question names alternatives such as "SQLite or PostgreSQL"):
a claim below :data:`RELATIVE_CUTOFF` (90 %) of the best one is dropped, so the quality
factors below only ever reorder claims that are about as relevant. (A claim that answers
another part of the question is added afterwards as complementary evidence, see
:mod:`memory_core.recall.complement`.) Only the claims that survive are ordered by

    rank = relevance * freshness * (1 + 0.04 * priority) * utility * accuracy

These factors are conservative policy weights, not probabilities that a claim is true.
Remaining ties go to the pinned claim, then the more recently updated, then the smaller id.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.index import IndexedDoc

RELATIVE_CUTOFF = 0.9
PRIORITY_STEP = 0.04
UTILITY_FACTORS = {"useful": 1.05, "unhelpful": 0.90}
ACCURACY_FACTORS = {"accurate": 1.05, "incorrect": 0.50}


def evidence_weight(priority: int) -> float:
    """``1 + 0.04 * priority``: a stronger source tips a close race, never a relevance gap."""
    return 1.0 + PRIORITY_STEP * priority


def utility_factor(verdict: str | None) -> float:
    """The explicit usefulness verdict as a factor (1 when there is none)."""
    return UTILITY_FACTORS.get(verdict or "", 1.0)


def accuracy_factor(verdict: str | None) -> float:
    """The explicit accuracy verdict as a factor; ``incorrect`` claims are never indexed anyway."""
    return ACCURACY_FACTORS.get(verdict or "", 1.0)


def rank_score(raw: float, fresh: float, priority: int, utility: str | None, accuracy: str | None) -> float:
    """The ordering score of an eligible claim."""
    return raw * fresh * evidence_weight(priority) * utility_factor(utility) * accuracy_factor(accuracy)


@dataclass(slots=True)
class Candidate:
    """One claim that matched the query, with its scores and, if dropped, the reason."""

    doc: IndexedDoc
    raw: float
    matched: tuple[str, ...]
    context_matched: tuple[str, ...]
    excluded: str | None = None
    alternatives: tuple[int, ...] = ()
    # Matches every focus feature some claim holds (see ``Evaluation.complete``).
    complete: bool = False
    # Chosen as complementary evidence (answers what the other chosen claims left open).
    complement: bool = False
    # The share of the question's focus weight it matches.
    coverage: float = 0.0
    freshness: float = 1.0
    dormant: bool = False
    rank: float = 0.0

    def sort_key(self) -> tuple[float, int, float, str]:
        """Best rank first; then pinned, more recently updated, smaller id."""
        return (-self.rank, -int(self.doc.pinned), -self.doc.updated_at, self.doc.memory_id)


def select(
    candidates: list[Candidate],
    *,
    now: float,
    limit: int,
    include_dormant: bool = False,
    relative_cutoff: bool = True,
    facet_redundancy: bool = True,
) -> list[Candidate]:
    """Age, cut, rank and pick at most ``limit`` candidates; every other one gets a reason.

    Candidates that already carry an exclusion reason (a failed relevance gate) are only
    aged, for diagnostics.
    """
    for c in candidates:
        doc = c.doc
        c.freshness = freshness(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
        c.dormant = is_dormant(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
        if c.excluded is None and c.dormant and not include_dormant:
            c.excluded = "dormant"
    eligible = [c for c in candidates if c.excluded is None]
    if eligible and relative_cutoff:
        best: dict[tuple[int, ...], float] = {}
        for c in eligible:
            best[c.alternatives] = max(best.get(c.alternatives, 0.0), c.raw)
        for c in eligible:
            if c.raw < RELATIVE_CUTOFF * best[c.alternatives]:
                c.excluded = "below_relative_cutoff"
        eligible = [c for c in eligible if c.excluded is None]
    for c in eligible:
        doc = c.doc
        c.rank = rank_score(c.raw, c.freshness, doc.priority, doc.utility, doc.accuracy)
    eligible.sort(key=Candidate.sort_key)
    chosen: list[Candidate] = []
    seen_content: set[tuple[str, str]] = set()
    for c in eligible:
        content_key = (c.doc.origin, c.doc.content_hash)
        if content_key in seen_content:
            # The same words in the same origin say nothing new; in another origin they
            # may be a different fact (the same port number in two projects).
            c.excluded = "duplicate_content"
            continue
        if facet_redundancy and _redundant(c, chosen):
            c.excluded = "redundant_facet"
            continue
        if len(chosen) >= limit:
            c.excluded = "over_limit"
            continue
        seen_content.add(content_key)
        chosen.append(c)
    return chosen


def _redundant(candidate: Candidate, chosen: list[Candidate]) -> bool:
    """Whether a better claim of the same origin *and kind* already covers this one's facets.

    It does when it matched more of the question (this claim's matched features are a
    strict subset of its), or exactly the same features while this claim does not answer
    the whole question: two partial matches on the same words are one side of it, and the
    better one is enough. Several claims that each match the whole question are all
    answers (the places of every event held in one city), so none of them is redundant.
    Another origin may mean another project, so it never counts; tracking kind separately
    keeps a project-state mention from crowding out a fact or a preference.
    """
    facets = set(candidate.matched)
    for other in chosen:
        if other.doc.origin != candidate.doc.origin or other.doc.kind != candidate.doc.kind:
            continue
        theirs = set(other.matched)
        if facets < theirs or (facets == theirs and not candidate.complete):
            return True
    return False
