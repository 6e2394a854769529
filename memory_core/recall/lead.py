"""When the gates pass nothing: the claim a plain lexical ranking puts far ahead of the rest.

The relevance gates are precise and, on data they were not tuned on, often too strict: a
question answered by one clearly best claim that misses a gate by a little (a paraphrase
covers too small a share of the question's words, a name is spelt another way) gets
nothing. When no claim passed, the candidates are ranked by their raw relevance alone (the
weighted words they share with the question, as BM25 ranks them) and the first one is taken
when it leads the next distinct claim by :data:`LEAD_RATIO` and matches at least
:data:`LEAD_MIN_COVERAGE` of the question's weight. A question no claim answers rarely has
one claim that far ahead of the others: its best matches share a common word or two.

The constants were chosen on the development sets with each set left out in turn (``bench/
recall_quality.py --lead-grid``; docs/recall.md, "Lexical lead").
"""

from __future__ import annotations

from memory_core.recall.aging import is_dormant
from memory_core.recall.rank import Candidate
from memory_core.recall.scoring import FIRM_REASONS

LEAD_RATIO = 1.3
LEAD_MIN_COVERAGE = 0.4
# Candidates the ranking leaves out: no word of the question itself, or a claim recall never
# judged (``explain --claim`` scores it, so it must not change what recall chooses).
UNRANKED = frozenset({"no_focus_match", "not_read", "not_scored"})


class Lead:
    """The best candidate by raw relevance, how far it leads the next one, and whether it is taken."""

    __slots__ = ("candidate", "eligible", "firm", "gate", "ratio", "taken")

    def __init__(self, candidate: Candidate, ratio: float, *, eligible: bool, taken: bool) -> None:
        self.candidate = candidate
        self.gate = candidate.excluded  # the gate it failed (selection clears it when taken)
        self.firm = candidate.firm  # a firm gate it fails too (it is then not eligible)
        self.ratio = ratio
        # Failing no firm gate: the margin and coverage decide.
        self.eligible = eligible
        self.taken = taken

    def as_dict(self) -> dict[str, object]:
        """Plain data for the diagnostics."""
        c = self.candidate
        return {
            "id": c.doc.memory_id,
            "ratio": round(self.ratio, 3) if self.ratio != float("inf") else None,
            "coverage": round(c.coverage, 3),
            "gate": self.gate,
            "firm": self.firm,
            "eligible": self.eligible,
            "taken": self.taken,
        }


def find(candidates: list[Candidate], *, now: float, include_dormant: bool) -> Lead | None:
    """The lexical lead among ``candidates`` (none passed the gates), or ``None`` when none matched."""
    # A dormant claim is out of sight of a recall that leaves dormant claims out: it neither
    # leads nor stands in an awake claim's way. (Whether it was scored at all depends on how
    # far the pruned search went; a ranking that counted it would differ between the two.)
    ranked = sorted(
        (
            c
            for c in candidates
            if c.raw > 0
            and c.excluded not in UNRANKED
            and (include_dormant or not is_dormant(c.doc.kind, c.doc.clock_at, now, pinned=bool(c.doc.pinned)))
        ),
        key=lambda c: (-c.raw, c.doc.memory_id),
    )
    if not ranked:
        return None
    best = ranked[0]
    key = (best.doc.origin, best.doc.content_hash)
    second = next((c for c in ranked[1:] if (c.doc.origin, c.doc.content_hash) != key), None)
    ratio = best.raw / second.raw if second is not None else float("inf")
    # Failing no firm gate, first or after a soft one (:attr:`Candidate.firm`).
    eligible = best.excluded not in FIRM_REASONS and best.firm is None
    taken = eligible and ratio >= LEAD_RATIO and best.coverage >= LEAD_MIN_COVERAGE
    return Lead(best, ratio, eligible=eligible, taken=taken)
