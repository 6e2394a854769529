"""The kind of thing a what/which question asks, and how a claim's coverage is measured
against the word naming it (:func:`memory_core.text.asked_kind.asked_kind`; docs/recall.md,
gate 4).

"What charting *library* is used …" is answered by a claim naming an instance ("Recharts
draws the revenue charts"), which need not hold the word: such a claim is measured without
it when it matches a word qualifying the kind or naming the question's subject. A claim
holding the word but none of the words qualifying it names another kind ("the Credentials
provider" for "what cloud provider …"): the word is not counted as found.
"""

from __future__ import annotations

from collections.abc import Mapping

from memory_core.recall.query_plan import KindAsked
from memory_core.recall.query_units import Unit

# (the unit naming the kind, the units a claim without it must match one of, the units of
# the words qualifying it)
KindUnits = tuple["Unit | None", tuple[Unit, ...], tuple[Unit, ...]]
NO_KIND: KindUnits = (None, (), ())


def kind_units(units: tuple[Unit, ...], kind: KindAsked | None) -> KindUnits:
    """The unit naming the kind a question asks (not an attribute, and not the question's
    only unit); the units of which a claim without it must match one: a word qualifying the
    kind, or a named subject that is not the question's passive verb ("is *used*"); and the
    units of the words qualifying the kind ("*cloud* provider")."""
    if kind is None or len(units) < 2:
        return NO_KIND
    found = [u for u in units if not (u.attribute or u.numeric) and any(t.feature in kind.word for t in u.terms)]
    if not found:
        return NO_KIND
    head = found[-1]

    def holds(u: Unit, features: tuple[str, ...]) -> bool:
        return any(t.feature in features for t in u.terms)

    support = tuple(
        u for u in units if u is not head and (holds(u, kind.qualifiers) or (u.named and not holds(u, kind.verb)))
    )
    return head, support, tuple(u for u in units if u is not head and holds(u, kind.qualifiers))


def judged_units(
    kind: KindUnits, units: tuple[Unit, ...], masks: Mapping[str, int], weights: Mapping[str, float]
) -> tuple[tuple[Unit, ...], float]:
    """The units a claim's coverage is measured against (without the kind's unit for a claim
    naming an instance), and the weight it holds that is not counted as found (the kind's
    word without any word qualifying it)."""
    head, support, qualifiers = kind
    if head is None or head not in units:
        return units, 0.0
    if not head.matched(masks, weights, ~0):
        if any(u in units and u.matched(masks, weights, ~0) for u in support):
            return tuple(u for u in units if u is not head), 0.0
        return units, 0.0
    if qualifiers and not any(u.matched(masks, weights, ~0) for u in qualifiers):
        return units, sum(weights[t.feature] for t in head.core if masks.get(t.feature, 0))
    return units, 0.0
