"""What the scored candidates prove about the unscored ones (:mod:`.engine` scores them
best-first by an upper bound of their relevance, and stops once the proof holds)."""

from __future__ import annotations

from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.rank import (
    ACCURACY_FACTORS,
    RELATIVE_CUTOFF,
    UTILITY_FACTORS,
    Candidate,
    evidence_weight,
    rank_score,
)

# The most the quality factors can lift a raw score: freshness 1, priority 4, both verdicts.
ROUNDING_MARGIN = 1e-9
MAX_RANK_FACTOR = evidence_weight(4) * max(UTILITY_FACTORS.values()) * max(ACCURACY_FACTORS.values())


class Proof:
    """What the scored candidates prove about the unscored ones, kept up to date batch by batch.

    Automatic recall (``narrow``) keeps the best raw relevance of an awake passing claim:
    a candidate whose bound is below :data:`RELATIVE_CUTOFF` of it is cut. A listing keeps
    the rank of every awake passing claim: once ``limit`` distinct claims rank above what
    the best unscored one could reach with the best quality factors, it cannot be listed.
    A tie is no proof (the tie-breaks could favour the unscored claim).
    """

    def __init__(self, *, now: float, limit: int, include_dormant: bool, narrow: bool, grouped: bool) -> None:
        self.now, self.limit, self.include_dormant = now, limit, include_dormant
        self.narrow, self.grouped = narrow, grouped
        self.best_raw = -1.0
        self.ranks: list[tuple[float, str, str]] = []

    def add(self, passing: list[Candidate]) -> None:
        now = self.now
        for c in passing:
            doc = c.doc
            pinned = bool(doc.pinned)
            if not self.include_dormant and is_dormant(doc.kind, doc.clock_at, now, pinned=pinned):
                continue
            if self.narrow:
                self.best_raw = max(self.best_raw, c.raw)
            else:
                fresh = freshness(doc.kind, doc.clock_at, now, pinned=pinned)
                rank = rank_score(c.raw, fresh, doc.priority, doc.utility, doc.accuracy)
                self.ranks.append((rank, doc.origin, doc.content_hash))

    def proven(self, bound: float) -> bool:
        """Whether no candidate whose relevance is at most ``bound`` could still be selected."""
        if self.narrow:
            # With alternatives the cutoff is per alternative, and an unscored claim may be
            # about one nothing scored yet speaks to: only the full list is safe.
            margin = 1 + ROUNDING_MARGIN  # the bound sums in another order than the exact score
            return not self.grouped and self.best_raw >= 0 and bound * margin < RELATIVE_CUTOFF * self.best_raw
        # The same product taken in another order may differ in its last bits: a claim that
        # ties the best unscored one must not look better by rounding.
        reach = bound * MAX_RANK_FACTOR * (1 + ROUNDING_MARGIN)
        distinct = {(origin, chash) for rank, origin, chash in self.ranks if rank > reach}
        return len(distinct) >= self.limit
