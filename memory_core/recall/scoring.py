"""Lexical relevance and the gates a claim must pass before it may be ranked at all.

Everything here is pure: a plan, feature weights and where each feature was found in one
claim go in; a raw relevance and the first failed gate (if any) come out.

Weights: a feature seen in ``df`` of ``N`` indexed claims weighs
``1 + 1.5 * log((N+1)/(df+1))`` (:data:`IDF_SCALE`); a feature no claim has weighs 1 (not
the highest weight, which would let one unknown word dominate). Literals (paths, filenames,
identifiers) weigh double. Where a feature was found scales it: body 1, search-term alias
0.8, inside a quoted question 0.25, in the origin identifier 0.2.

Coverage is measured per unit (a word, literal, concept or Chinese segment;
:mod:`memory_core.recall.query_units`) against what the store holds: a unit some claim
holds counts with the weight of its held features (a Chinese segment's unseen cross-word
bigrams and the bigram reaching over a function character at its edge do not count), a
unit no claim holds counts as one light word
(:data:`~memory_core.recall.query_units.UNSEEN_UNIT_WEIGHT`). So a question word no claim
contains cannot sink a match on its own; a question made mostly of words the store has
never seen still can.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from memory_core.recall.kinds import judged_units, kind_units
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.query_units import (
    active_units,
    choice_groups,
    doubled,
    question_units,
    unit_slots,
    unknown_names,
    value_pairs,
)
from memory_core.text.subject_roles import POSSESSED, POSSESSOR

BODY, ALIAS, QUOTE, ORIGIN = 1, 2, 4, 8
FIELD_BITS = {"body": BODY, "alias": ALIAS, "quote": QUOTE}
ORIGIN_FACTOR = 0.2
FIELD_FACTORS = ((BODY, 1.0), (ALIAS, 0.8), (QUOTE, 0.25), (ORIGIN, ORIGIN_FACTOR))
EVIDENCE_FIELDS = BODY | ALIAS

LITERAL_FACTOR = 2.0
# How much a feature's rarity adds to the weight 1 every word has: a word held by nearly
# every claim weighs about 1 (as much as a word no claim holds), a rare one far more, so a
# common word the answer repeats covers little of the question and one it does not repeat
# costs little (it was 1.0 before the gate rework; see docs/recall.md).
IDF_SCALE = 1.5
CONTEXT_WEIGHT = 0.35
MIN_FOCUS_COVERAGE = 0.45
# The conversation's earlier words may supply at most half of what the coverage gate asks:
# a claim must match a fair part of the current question itself.
MAX_BACKGROUND_SHARE = MIN_FOCUS_COVERAGE / 2
# A complementary claim (one that answers the part of a question the chosen claims left
# open) must match at least this share of that remaining weight.
MIN_COMPLEMENT_COVERAGE = 0.5
# A concept-only context subject (e.g. "database") must be covered this well.
MIN_CONCEPT_CONTEXT_COVERAGE = 0.60
NAMED_ATTRIBUTE_MAX_UNITS = 4
# A question of at most this many units asking a value ("what is the Kafka broker port
# number?") names a subject; when no claim holds it, nothing answers (unknown_names).
UNKNOWN_SUBJECT_MAX_UNITS = 6
LENGTH_PIVOT = 12
# In a store of at least COMMON_MIN_CLAIMS, a feature held by more than this share of all
# claims says as little as a filler word: it still scores, but cannot qualify a record.
COMMON_SHARE = 0.10
COMMON_MIN_CLAIMS = 300


# Gates the lexical lead (:mod:`memory_core.recall.lead`) may not overrule: the claim shares
# no word of the question itself (only the conversation's), only a quoted question, lacks a
# path or identifier the question names; the question names something no claim holds (a
# subject it asks a value of, or a name beside the one word the claim matches: memory has
# never heard of what is asked about); or a short question names a subject and an attribute
# and the claim lacks one of them (another subject's port, or the subject's timeout, is no
# answer to "SQLite port?").
FIRM_REASONS = frozenset(
    {
        "no_focus_match",
        "quoted_question_only",
        "literal_missing",
        "unknown_subject",
        "unknown_words",
        "named_subject_missing",
        "named_attribute_missing",
        "possessor_missing",
    }
)


def feature_weight(document_frequency: int, total: int, *, literal: bool = False) -> float:
    """The weight of one query feature in a collection of ``total`` indexed claims."""
    if document_frequency <= 0:
        weight = 1.0
    else:
        weight = 1.0 + IDF_SCALE * math.log((total + 1) / (document_frequency + 1))
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


# The fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the
# same class) at run time, whose fields ``typing`` need not compile one annotation string at
# a time on every start of the per-turn hook (docs/hooks.md, "Cost"; a test compares the two).
if TYPE_CHECKING:

    class _EvaluationFields(NamedTuple):
        raw: float
        matched: tuple[str, ...]
        context_matched: tuple[str, ...]
        reason: str | None
        # Which alternatives ("A or B") the claim speaks to: the relative cutoff compares
        # claims about the same alternative, so a lighter-named option is not crowded out.
        alternatives: tuple[int, ...] = ()
        # Whether the claim matches every focus feature some claim holds (of the alternatives
        # it speaks to): facet redundancy keeps every such complete answer.
        complete: bool = False
        # The share of the question's focus weight it matches (see :meth:`PlanScorer.coverage`).
        coverage: float = 0.0
        # The first firm gate (:data:`FIRM_REASONS`) it fails, wherever it comes in the order.
        firm: str | None = None

else:
    _EvaluationFields = namedtuple(
        "Evaluation",
        ("raw", "matched", "context_matched", "reason", "alternatives", "complete", "coverage", "firm"),
        defaults=((), False, 0.0, None),
    )


class Evaluation(_EvaluationFields):
    """Raw relevance of one claim, the focus/context features it matched, and why it failed."""

    __slots__ = ()


class PlanScorer:
    """Scores claims against one plan; built once per recall, applied per candidate."""

    def __init__(self, plan: QueryPlan, frequency: Mapping[str, int], total: int) -> None:
        self.plan = plan
        self._cache: dict[tuple[tuple[str, int], ...], tuple] = {}
        context = tuple(t for t in plan.context if t.feature not in {f.feature for f in plan.focus})
        self.focus = plan.focus
        self.context = context
        held = {t.feature for t in (*plan.focus, *context)}
        self.background = tuple(t for t in plan.background if t.feature not in held)
        self.weights: dict[str, float] = {
            t.feature: feature_weight(frequency.get(t.feature, 0), total, literal=t.literal)
            for t in (*plan.focus, *context, *self.background)
        }
        # The most the background's words can add to the weight a claim's coverage counts.
        self.background_credit = CONTEXT_WEIGHT * sum(
            self.weights[t.feature] for t in self.background if frequency.get(t.feature, 0) > 0
        )
        # Features some indexed claim holds.
        self.seen = frozenset(f for f in self.weights if frequency.get(f, 0) > 0)
        self.common = frozenset(
            f for f in self.weights if total >= COMMON_MIN_CLAIMS and frequency.get(f, 0) > COMMON_SHARE * total
        )
        self.focus_units = question_units(self.focus, self.weights, frequency)
        # "A or B" groups (not an attribute with its value class): the cutoff is per choice.
        self.choice_groups = choice_groups(self.focus)
        # A value class and the attribute it stands for: a claim holding both is credited once.
        self.value_pairs = value_pairs(self.focus)
        self.context_units = question_units(context, self.weights, frequency)
        self.focus_total = sum(u.counted for u in self.focus_units)
        # The word naming the kind of thing asked ("what charting *library* …"), and what a
        # claim naming an instance of it ("Recharts for the revenue chart") must match in its
        # place: a word qualifying the kind or naming the question's subject (:meth:`coverage`).
        self.kind = kind_units(self.focus_units, plan.kind)
        # The smallest total a claim's coverage can be measured against: all but the lightest
        # alternative of each group dropped. Candidate pruning must use it to stay complete.
        self.min_focus_total = (
            self.focus_total
            - (self.kind[0].counted if self.kind[0] else 0.0)
            - sum(
                sum(u.counted for u in slot) - min(u.counted for u in slot)
                for slot in unit_slots(self.focus_units)
                if len(slot) > 1
            )
        )
        # The least focus weight a claim passing the coverage gate matches, whatever its
        # alternatives and background words: candidate enumeration must rely on no more.
        self.min_focus_found = max(
            (MIN_FOCUS_COVERAGE - MAX_BACKGROUND_SHARE) * self.min_focus_total,
            MIN_FOCUS_COVERAGE * self.min_focus_total - self.background_credit,
        )
        # Focus features that can qualify a claim (not generic, not very common).
        self.qualifying = frozenset(t.feature for t in self.focus if not t.generic and t.feature not in self.common)
        slots = unit_slots(self.focus_units)
        # The subject a short question names: not a word of what it asks ("which node
        # version does the build need?" names no subject but the build, a concept).
        named = [slot for slot in slots if any(u.named and not u.asked for u in slot)]
        attributes = [u for u in self.focus_units if u.attribute and not u.generic]
        # The short named-attribute rule: "SQLite auth?" needs SQLite *and* auth; "where
        # does the MongoDB database live?" asks a place by its question word and needs MongoDB.
        asks = bool(attributes) or plan.asks_value
        # A subject picked out by a relative clause ("那个30岁的人是做什么的") is no name: the
        # clause is a condition another claim may state, not a word the answer must hold.
        self.named_attribute = (
            (named[0], tuple(attributes))
            if len(slots) <= NAMED_ATTRIBUTE_MAX_UNITS and len(named) == 1 and asks and not plan.describes
            else None
        )
        # A one-word wh-phrase no claim holds ("what *food* am I allergic to?") names the kind
        # of thing asked, of which the answer is an instance ("shellfish"), not a word the
        # answer must hold; a longer one ("what git branching strategy …") names something
        # in particular, and a question asking an attribute ("what port does the auth
        # *service* use?", the word completing an attribute's phrase) asks that attribute.
        asked = [u for u in self.focus_units if u.asked]
        self.asks_a_kind = len(asked) == 1 and asked[0].unseen and not any(u.attribute for u in self.focus_units)
        # The name owning the person the question asks about, and that person ("*张伟*的*妻子*"):
        # an answer names both, or it is about somebody else's wife, or about 张伟 himself.
        owners = [u for u in self.focus_units if u.terms[0].role == POSSESSOR and not u.unseen]
        owned = [u for u in self.focus_units if u.terms[0].role == POSSESSED and not u.unseen]
        self.possessors = (tuple(owners), tuple(owned)) if owners and owned else None
        # A short question asking a value of a subject no claim names: nothing answers it.
        self.unknown_subject = (
            unknown_names(self.focus_units) if asks and len(slots) <= UNKNOWN_SUBJECT_MAX_UNITS else ()
        )

    def names_answered(self, masks: Mapping[str, int]) -> bool:
        """Whether claims matching ``masks`` together speak of the subject a short question
        names (a pair of claims, each answering part of it, must too)."""
        if not self._names_unknown_subject(masks):
            return False
        if self.named_attribute is None:
            return True
        return any(u.matched(masks, self.weights, EVIDENCE_FIELDS | ORIGIN) for u in self.named_attribute[0])

    def _names_unknown_subject(self, masks: Mapping[str, int]) -> bool:
        """A subject no claim's text names is answered only where an origin's name holds it."""
        return all(u.matched(masks, self.weights, ~0) for u in self.unknown_subject)

    def evaluate(self, masks: Mapping[str, int], body_feature_count: int) -> Evaluation:
        """Score one claim from where each query feature was found in it."""
        # Everything but the length factor depends only on the masks, and many claims
        # share a pattern (a common query word alone, say): work each pattern out once.
        key = tuple(sorted(masks.items()))
        known = self._cache.get(key)
        if known is None:
            known = self._cache[key] = self._judge(masks)
        reason, score, matched, context_matched, alternatives, complete, coverage, firm = known
        return Evaluation(
            length_factor(body_feature_count) * score,
            matched,
            context_matched,
            reason,
            alternatives,
            complete,
            coverage,
            firm,
        )

    def _judge(
        self, masks: Mapping[str, int]
    ) -> tuple[str | None, float, tuple[str, ...], tuple[str, ...], tuple[int, ...], bool, float, str | None]:
        weights = self.weights
        matched = tuple(t.feature for t in self.focus if masks.get(t.feature, 0))
        # Holding an attribute's word and a value of it is one answer: the heavier counts.
        dropped = doubled(set(matched), self.value_pairs, weights) if self.value_pairs else ()
        scored = tuple(f for f in matched if f not in dropped) if dropped else matched
        context_matched = tuple(t.feature for t in self.context if masks.get(t.feature, 0))
        failures = self._failures(masks, matched)
        reason = next(failures, None)
        # A claim whose first failure is soft may fail a firm gate after it: the lexical lead
        # must not take it (another subject's attribute that misses the coverage gate too).
        firm = reason if reason in FIRM_REASONS else next((r for r in failures if r in FIRM_REASONS), None)
        focus_score = sum(weights[f] * field_strength(masks[f]) for f in scored)
        context_score = sum(weights[f] * field_strength(masks[f]) for f in context_matched)
        choices = self.choice_groups
        alternatives = tuple(
            u.terms[0].unit for u in self.focus_units if u.group in choices and u.matched(masks, weights, ~0)
        )
        seen = self.seen
        complete = bool(matched) and all(
            masks.get(t.feature, 0)
            for u in active_units(self.focus_units, masks, weights)
            for t in u.core
            if t.feature in seen
        )
        return (
            reason,
            focus_score + CONTEXT_WEIGHT * context_score,
            matched,
            context_matched,
            alternatives,
            complete,
            self.coverage(masks) if matched else 0.0,
            firm,
        )

    def coverage(self, masks: Mapping[str, int]) -> float:
        """The share of the question's focus weight a claim matches (of the alternatives it
        speaks to), each unit counted as :meth:`~memory_core.recall.query_units.Unit.counted`
        says. A claim that matches the focus also gets :data:`CONTEXT_WEIGHT` of the weight
        of each background word (the conversation's earlier words) it holds in its body or
        aliases, at most :data:`MAX_BACKGROUND_SHARE` of the question's weight."""
        weights = self.weights
        units = active_units(self.focus_units, masks, weights)
        units, unfound = judged_units(self.kind, units, masks, weights)
        total = sum(u.counted for u in units)
        found = sum(weights[t.feature] for u in units for t in u.core if masks.get(t.feature, 0)) - unfound
        if found and self.background:
            # The conversation's earlier words support a claim that answers the focus.
            support = CONTEXT_WEIGHT * sum(
                weights[t.feature] for t in self.background if masks.get(t.feature, 0) & EVIDENCE_FIELDS
            )
            found += min(support, MAX_BACKGROUND_SHARE * total)
        return min(1.0, found / total) if total else 0.0

    def _failures(self, masks: Mapping[str, int], matched: tuple[str, ...]) -> Iterator[str]:
        """Every gate the claim fails, in the order they are judged (lazily: the first is its
        reason, and only a claim failing a soft gate first is asked for a firm one after it)."""
        weights = self.weights
        if not matched:
            yield "no_focus_match"
            return
        if not self._names_unknown_subject(masks):
            yield "unknown_subject"
        if not any(masks.get(f, 0) & EVIDENCE_FIELDS for f in self.qualifying):
            if all((masks[f] & ~QUOTE) == 0 for f in matched):
                yield "quoted_question_only"
            else:
                yield "no_qualifying_match"
        units = active_units(self.focus_units, masks, weights)
        terms = [t for u in units for t in u.terms]
        if any(t.literal and not masks.get(t.feature, 0) for t in terms):
            yield "literal_missing"
        if self.possessors is not None and not all(
            any(u.matched(masks, weights, EVIDENCE_FIELDS) for u in units) for units in self.possessors
        ):
            yield "possessor_missing"
        if self.coverage(masks) < MIN_FOCUS_COVERAGE:
            yield "focus_coverage"
        matched_units = sum(1 for u in units if u.matched(masks, weights, ~0))
        if sum(1 for u in units if not u.unseen) >= 3 and matched_units < 2:
            yield "too_few_matches"
        if matched_units == 1 and any(
            u.unseen and u.named and not u.cjk and not (u.asked and self.asks_a_kind) for u in units
        ):
            yield "unknown_words"
        if self.named_attribute is not None:
            subject, attributes = self.named_attribute
            if not any(u.matched(masks, weights, EVIDENCE_FIELDS | ORIGIN) for u in subject):
                yield "named_subject_missing"
            elif attributes and not any(a.matched(masks, weights, EVIDENCE_FIELDS) for a in attributes):
                yield "named_attribute_missing"
        context = self._context_gate(masks)
        if context is not None:
            yield context

    def complement(self, masks: Mapping[str, int], open_features: frozenset[str]) -> float:
        """How much of the still open part of the question a claim answers (0 if it cannot).

        ``open_features`` are the (seen) focus features no chosen claim matched. A claim
        answers them when it matches at least :data:`MIN_COMPLEMENT_COVERAGE` of their
        weight in its body or aliases, one of them a qualifying feature; the result is the
        weight it matches.
        """
        weights = self.weights
        found = [f for f in open_features if masks.get(f, 0) & EVIDENCE_FIELDS]
        if not any(f in self.qualifying for f in found):
            return 0.0
        weight = sum(weights[f] for f in found)
        total = sum(weights[f] for f in open_features)
        return weight if weight >= MIN_COMPLEMENT_COVERAGE * total else 0.0

    def _context_gate(self, masks: Mapping[str, int]) -> str | None:
        if not self.context_units:
            return None
        named = [slot for slot in unit_slots(self.context_units) if any(u.named for u in slot)]
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
