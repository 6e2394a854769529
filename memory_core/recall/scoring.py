"""Lexical relevance and the gates a claim must pass before it may be ranked at all.

Everything here is pure: a plan, feature weights and where each feature was found in one
claim go in; a raw relevance and the first failed gate (if any) come out.

Weights: a feature seen in ``df`` of ``N`` indexed claims weighs ``1 + log((N+1)/(df+1))``;
a feature no claim has weighs 1 (not the highest weight, which would let one unknown word
dominate). Literals (paths, filenames, identifiers) weigh double. Where a feature was found
scales it: body 1, search-term alias 0.8, inside a quoted question 0.25, in the origin
identifier 0.2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from memory_core.recall.query_plan import QueryPlan
from memory_core.text.tokenize import Term

BODY, ALIAS, QUOTE, ORIGIN = 1, 2, 4, 8
FIELD_BITS = {"body": BODY, "alias": ALIAS, "quote": QUOTE}
ORIGIN_FACTOR = 0.2
FIELD_FACTORS = ((BODY, 1.0), (ALIAS, 0.8), (QUOTE, 0.25), (ORIGIN, ORIGIN_FACTOR))
EVIDENCE_FIELDS = BODY | ALIAS

LITERAL_FACTOR = 2.0
CONTEXT_WEIGHT = 0.35
MIN_FOCUS_COVERAGE = 0.45
# A concept-only context subject (e.g. "database") must be covered this well.
MIN_CONCEPT_CONTEXT_COVERAGE = 0.60
# A multi-bigram Chinese subject counts as present when this share of its weight matched.
MIN_UNIT_COVERAGE = 0.5
NAMED_ATTRIBUTE_MAX_UNITS = 4
LENGTH_PIVOT = 12
# In a store of at least COMMON_MIN_CLAIMS, a feature held by more than this share of all
# claims says as little as a filler word: it still scores, but cannot qualify a record.
COMMON_SHARE = 0.10
COMMON_MIN_CLAIMS = 300


def feature_weight(document_frequency: int, total: int, *, literal: bool = False) -> float:
    """The weight of one query feature in a collection of ``total`` indexed claims."""
    if document_frequency <= 0:
        weight = 1.0
    else:
        weight = 1.0 + math.log((total + 1) / (document_frequency + 1))
    return weight * (LITERAL_FACTOR if literal else 1.0)


def field_strength(mask: int) -> float:
    """The factor of the strongest field a feature was found in (0 when absent)."""
    for bit, factor in FIELD_FACTORS:
        if mask & bit:
            return factor
    return 0.0


def length_factor(body_feature_count: int) -> float:
    """Mild preference for short, focused claims: 1 up to 12 body features, towards 0.8 beyond."""
    return 0.8 + 0.2 * min(1.0, LENGTH_PIVOT / max(1, body_feature_count))


class _Unit(NamedTuple):
    terms: tuple[Term, ...]
    weight: float
    unseen: bool

    @property
    def attribute(self) -> bool:
        return self.terms[0].attribute

    @property
    def generic(self) -> bool:
        return self.terms[0].generic

    @property
    def numeric(self) -> bool:
        return self.terms[0].numeric

    @property
    def concept(self) -> bool:
        return self.terms[0].kind == "concept"

    @property
    def group(self) -> int:
        return self.terms[0].group

    @property
    def named(self) -> bool:
        """A subject written out (a word, literal or Chinese segment), not a concept."""
        return not (self.attribute or self.numeric or self.concept)

    def matched(self, masks: Mapping[str, int], weights: Mapping[str, float], allowed: int) -> bool:
        """Whether the unit was found in the ``allowed`` fields (a Chinese segment: half its weight)."""
        if len(self.terms) == 1:
            return bool(masks.get(self.terms[0].feature, 0) & allowed)
        found = sum(weights[t.feature] for t in self.terms if masks.get(t.feature, 0) & allowed)
        return found >= MIN_UNIT_COVERAGE * self.weight


def _units(terms: tuple[Term, ...], weights: Mapping[str, float],
           frequency: Mapping[str, int]) -> tuple[_Unit, ...]:
    grouped: dict[int, list[Term]] = {}
    for term in terms:
        grouped.setdefault(term.unit, []).append(term)
    return tuple(
        _Unit(tuple(group), sum(weights[t.feature] for t in group),
              all(frequency.get(t.feature, 0) == 0 for t in group))
        for group in grouped.values()
    )


def _slots(units: tuple[_Unit, ...]) -> list[tuple[_Unit, ...]]:
    """Units as the question counts them: alternatives joined by "or"/"和" fill one slot."""
    slots: dict[object, list[_Unit]] = {}
    for n, unit in enumerate(units):
        slots.setdefault(("group", unit.group) if unit.group else n, []).append(unit)
    return [tuple(v) for v in slots.values()]


def _active(units: tuple[_Unit, ...], masks: Mapping[str, int],
            weights: Mapping[str, float]) -> tuple[_Unit, ...]:
    """The units a claim is judged on: of a set of alternatives, those it does not mention
    are dropped once it mentions one of them ("SQLite or PostgreSQL" asks about either)."""
    if not any(u.group for u in units):
        return units
    hit_groups = {u.group for u in units if u.group and u.matched(masks, weights, ~0)}
    return tuple(u for u in units
                 if not u.group or u.group not in hit_groups or u.matched(masks, weights, ~0))


class Evaluation(NamedTuple):
    """Raw relevance of one claim, the focus/context features it matched, and why it failed."""

    raw: float
    matched: tuple[str, ...]
    context_matched: tuple[str, ...]
    reason: str | None
    # Which alternatives ("A or B") the claim speaks to: the relative cutoff compares
    # claims about the same alternative, so a lighter-named option is not crowded out.
    alternatives: tuple[int, ...] = ()


class PlanScorer:
    """Scores claims against one plan; built once per recall, applied per candidate."""

    def __init__(self, plan: QueryPlan, frequency: Mapping[str, int], total: int) -> None:
        self.plan = plan
        self._cache: dict[tuple[tuple[str, int], ...], tuple] = {}
        context = tuple(t for t in plan.context if t.feature not in {f.feature for f in plan.focus})
        self.focus = plan.focus
        self.context = context
        self.weights: dict[str, float] = {
            t.feature: feature_weight(frequency.get(t.feature, 0), total, literal=t.literal)
            for t in (*plan.focus, *context)
        }
        self.common = frozenset(
            f for f in self.weights
            if total >= COMMON_MIN_CLAIMS and frequency.get(f, 0) > COMMON_SHARE * total
        )
        self.focus_units = _units(self.focus, self.weights, frequency)
        self.context_units = _units(context, self.weights, frequency)
        self.focus_total = sum(self.weights[t.feature] for t in self.focus)
        # The smallest total a claim can be judged on: all but the lightest alternative of
        # each group dropped. Candidate pruning must use it to stay complete.
        self.min_focus_total = self.focus_total - sum(
            sum(u.weight for u in slot) - min(u.weight for u in slot)
            for slot in _slots(self.focus_units) if len(slot) > 1
        )
        slots = _slots(self.focus_units)
        named = [slot for slot in slots if any(u.named for u in slot)]
        attributes = [u for u in self.focus_units if u.attribute and not u.generic]
        # The short named-attribute rule: "SQLite auth?" needs SQLite *and* auth.
        self.named_attribute = (
            (named[0], tuple(attributes))
            if len(slots) <= NAMED_ATTRIBUTE_MAX_UNITS and len(named) == 1 and attributes
            else None
        )

    def evaluate(self, masks: Mapping[str, int], body_feature_count: int) -> Evaluation:
        """Score one claim from where each query feature was found in it."""
        # Everything but the length factor depends only on the masks, and many claims
        # share a pattern (a common query word alone, say): work each pattern out once.
        key = tuple(sorted(masks.items()))
        known = self._cache.get(key)
        if known is None:
            known = self._cache[key] = self._judge(masks)
        reason, score, matched, context_matched, alternatives = known
        return Evaluation(length_factor(body_feature_count) * score, matched, context_matched,
                          reason, alternatives)

    def _judge(self, masks: Mapping[str, int]) -> tuple[str | None, float, tuple[str, ...],
                                                         tuple[str, ...], tuple[int, ...]]:
        weights = self.weights
        matched = tuple(t.feature for t in self.focus if masks.get(t.feature, 0))
        context_matched = tuple(t.feature for t in self.context if masks.get(t.feature, 0))
        reason = self._gate(masks, matched)
        focus_score = sum(weights[f] * field_strength(masks[f]) for f in matched)
        context_score = sum(weights[f] * field_strength(masks[f]) for f in context_matched)
        alternatives = tuple(u.terms[0].unit for u in self.focus_units
                             if u.group and u.matched(masks, weights, ~0))
        return (reason, focus_score + CONTEXT_WEIGHT * context_score, matched, context_matched,
                alternatives)

    def _gate(self, masks: Mapping[str, int], matched: tuple[str, ...]) -> str | None:
        weights = self.weights
        if not matched:
            return "no_focus_match"
        common = self.common
        if not any(masks.get(t.feature, 0) & EVIDENCE_FIELDS for t in self.focus
                   if not t.generic and t.feature not in common):
            if all((masks[f] & ~QUOTE) == 0 for f in matched):
                return "quoted_question_only"
            return "no_qualifying_match"
        units = _active(self.focus_units, masks, weights)
        terms = [t for u in units for t in u.terms]
        if any(t.literal and not masks.get(t.feature, 0) for t in terms):
            return "literal_missing"
        total = sum(weights[t.feature] for t in terms)
        if sum(weights[t.feature] for t in terms if masks.get(t.feature, 0)) < MIN_FOCUS_COVERAGE * total:
            return "focus_coverage"
        matched_units = sum(1 for u in units if u.matched(masks, weights, ~0))
        if len(units) >= 3 and matched_units < 2:
            return "too_few_matches"
        if matched_units == 1 and any(u.unseen and u.named for u in units):
            return "unknown_words"
        if self.named_attribute is not None:
            subject, attributes = self.named_attribute
            if not any(u.matched(masks, weights, EVIDENCE_FIELDS | ORIGIN) for u in subject):
                return "named_subject_missing"
            if not all(a.matched(masks, weights, EVIDENCE_FIELDS) for a in attributes):
                return "named_attribute_missing"
        return self._context_gate(masks)

    def _context_gate(self, masks: Mapping[str, int]) -> str | None:
        if not self.context_units:
            return None
        named = [slot for slot in _slots(self.context_units) if any(u.named for u in slot)]
        if named:
            if not all(any(u.matched(masks, self.weights, ~0) for u in slot) for slot in named):
                return "context_subject_missing"
            return None
        subjects = [u for u in self.context_units if not u.attribute and not u.numeric]
        total = sum(u.weight for u in subjects)
        found = sum(self.weights[t.feature] for u in subjects for t in u.terms if masks.get(t.feature, 0))
        if total and found < MIN_CONCEPT_CONTEXT_COVERAGE * total:
            return "context_subject_missing"
        return None
