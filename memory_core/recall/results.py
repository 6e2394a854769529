"""What recall gives back: the selected claims with their provenance and scores, the digest
and the diagnostics (:mod:`memory_core.recall.service` builds them).
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Any, NamedTuple

from memory_core.recall.query_plan import QueryPlan

__all__ = ["RecallResult", "RecalledClaim"]


# Named tuples, not dataclasses: the per-turn hook builds these classes on every start, and a
# named tuple is several times cheaper to define (docs/hooks.md, "Cost"). The claim's fields
# are given as types, not as annotations: under ``from __future__ import annotations`` each
# annotation is a string that ``typing`` compiles, about 0.1 M instructions per field.
class RecalledClaim(
    NamedTuple(
        "RecalledClaim",
        [
            ("memory_id", str),
            ("source_id", str | None),
            ("kind", str),
            ("status", str),
            ("origin", str),
            ("evidence", str),
            ("updated_at", float),
            ("pinned", bool),
            ("dormant", bool),
            ("raw_score", float),
            ("rank_score", float),
            ("freshness", float),
            ("priority", int),
            ("utility", float),
            ("accuracy", float),
            ("matched", tuple[str, ...]),
            ("excerpt", str),
        ],
    )
):
    """One selected claim with its provenance and scores."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON output."""
        return {
            "id": self.memory_id,
            "source_id": self.source_id,
            "kind": self.kind,
            "status": self.status,
            "origin": self.origin,
            "evidence": self.evidence,
            "updated_at": self.updated_at,
            "pinned": self.pinned,
            "dormant": self.dormant,
            "raw_score": round(self.raw_score, 4),
            "rank_score": round(self.rank_score, 4),
            "freshness": round(self.freshness, 4),
            "priority": self.priority,
            "utility": self.utility,
            "accuracy": self.accuracy,
            "matched": list(self.matched),
            "excerpt": self.excerpt,
        }


# The fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the
# same class) at run time, whose fields ``typing`` need not compile one annotation string at
# a time on every start of the per-turn hook (docs/hooks.md, "Cost"; a test compares the two).
if TYPE_CHECKING:

    class _RecallResultFields(NamedTuple):
        claims: list[RecalledClaim]
        digest: str
        diagnostics: dict[str, Any]
        plan: QueryPlan = QueryPlan(())

else:
    _RecallResultFields = namedtuple(
        "RecallResult", ("claims", "digest", "diagnostics", "plan"), defaults=(QueryPlan(()),)
    )


class RecallResult(_RecallResultFields):
    """The selected claims, the digest for the agent ('' when nothing) and bounded diagnostics."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON output."""
        return {"claims": [c.as_dict() for c in self.claims], "digest": self.digest}
