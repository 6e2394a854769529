"""The units a question is judged in: a word, literal, concept or Chinese segment.

A question's terms are grouped into units (:func:`question_units`); alternatives joined by
"or"/"和" fill one slot (:func:`unit_slots`), and a claim is judged only on the alternatives
it speaks to (:func:`active_units`). A unit's weight is that of its features some claim
holds; a unit no claim holds counts as one light word (:data:`UNSEEN_UNIT_WEIGHT`) in the
coverage :class:`~memory_core.recall.scoring.PlanScorer` measures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from memory_core.text.grammar import ASKED
from memory_core.text.named_values import CHINESE_MAKERS
from memory_core.text.query_features import MODIFIER, Term
from memory_core.text.subject_roles import POINTED
from memory_core.text.value_classes import is_value_class
from memory_core.text.vocabulary import CHINESE_LONE_FILLER

# A multi-bigram Chinese subject counts as present when this share of its weight matched.
MIN_UNIT_COVERAGE = 0.5
# In coverage, a word (or Chinese segment) no claim holds counts as one light word, however
# many bigrams it has: it cannot sink a match on its own, only a question made mostly of
# words the store has never seen.
UNSEEN_UNIT_WEIGHT = 1.0


# ``core``: the features the unit is judged on: all of them, except that a Chinese segment's
# bigram reaching over a function character at its edge ("表妹有" of "表妹有多高") is grammar,
# not the subject, and does not count. ``weight``: that of the core features some claim
# holds: a Chinese segment's unseen cross-word bigrams do not count, and a unit no claim
# holds weighs nothing. (Fields given as types: see
# :class:`~memory_core.recall.scoring.Evaluation`.)
class Unit(
    NamedTuple("Unit", [("terms", tuple[Term, ...]), ("core", tuple[Term, ...]), ("weight", float), ("unseen", bool)])
):
    __slots__ = ()

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
    def verb(self) -> bool:
        return self.terms[0].verb

    @property
    def asked(self) -> bool:
        """A word of the question's wh-phrase ("node" of "which node version does …")."""
        return self.terms[0].role == ASKED

    @property
    def named(self) -> bool:
        """A subject written out (a word, literal or Chinese segment), not a concept or a
        word in a verb's place ("listen" of "what port does MySQL listen on?")."""
        return not (self.attribute or self.numeric or self.concept or self.verb)

    @property
    def counted(self) -> float:
        """What the unit adds to the weight a claim's coverage is measured against."""
        return UNSEEN_UNIT_WEIGHT if self.unseen else self.weight

    @property
    def cjk(self) -> bool:
        """A Chinese (CJK) segment: its unseen bigrams are phrasing, not a name."""
        return self.terms[0].kind == "cjk"

    def matched(self, masks: Mapping[str, int], weights: Mapping[str, float], allowed: int) -> bool:
        """Whether the unit was found in the ``allowed`` fields (a Chinese segment: half its weight)."""
        if len(self.core) == 1:
            return bool(masks.get(self.core[0].feature, 0) & allowed)
        found = sum(weights[t.feature] for t in self.core if masks.get(t.feature, 0) & allowed)
        return found > 0 and found >= MIN_UNIT_COVERAGE * self.weight


def question_units(
    terms: tuple[Term, ...], weights: Mapping[str, float], frequency: Mapping[str, int]
) -> tuple[Unit, ...]:
    grouped: dict[int, list[Term]] = {}
    for term in terms:
        grouped.setdefault(term.unit, []).append(term)
    units = []
    for group in grouped.values():
        core = _core(group)
        seen = [t for t in core if frequency.get(t.feature, 0) > 0]
        units.append(
            Unit(
                tuple(group),
                core,
                sum(weights[t.feature] for t in seen),
                all(frequency.get(t.feature, 0) == 0 for t in group),
            )
        )
    return tuple(units)


# A locative particle follows its noun ("服务器上", "家里", "三天内", "饭后"): at a segment's
# front the character is a word's first (上海, 下午, 中国, 内存, 外卖, 前端, 后端), not grammar.
_LOCATIVES = frozenset("上下中里内外前后")


def _core(group: list[Term]) -> tuple[Term, ...]:
    """A unit's terms without the bigrams over a function character at a Chinese segment's edge
    (a locative only at its end)."""
    if len(group) < 2 or group[0].kind != "cjk":
        return tuple(group)
    core = list(group)
    # A maker's name opening the segment ("*富士*相机", "*小米*手机"): the bigram over its end is
    # no word, and the maker alone names the thing as well as its kind does.
    if all(len(t.feature) == 2 for t in group):
        segment = "".join(t.feature[0] for t in group) + group[-1].feature[-1]
        end = next((k for k in (2, 3, 4, 5) if k < len(segment) and segment[:k] in CHINESE_MAKERS), 0)
        if end:
            core = [t for i, t in enumerate(core) if i != end - 1]
    if core[-1].feature[-1] in CHINESE_LONE_FILLER:
        core.pop()
    if core and core[0].feature[0] in CHINESE_LONE_FILLER and core[0].feature[0] not in _LOCATIVES:
        core.pop(0)
    return tuple(core) or tuple(group)


def unknown_names(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """The names of a question's subject no claim's text holds: a written-out word no claim
    holds (only an origin's name may) that opens its noun phrase, modifying the next word ("what port does the
    *Traefik* reverse proxy listen on?", "the *Kafka* broker port number"), not one of
    alternatives. Another subject sharing the phrase's head or the asked attribute is no
    answer about it. A word elsewhere ("when did Caroline *encounter* people …") is
    phrasing the claims need not repeat; a Chinese segment no claim holds is more often
    phrasing cut into bigrams (a short question's one Chinese subject is required by the
    named-attribute rule instead), unless a demonstrative and a measure word point at it
    ("我常去的那家*游泳馆*在哪？": a thing, not phrasing)."""
    return tuple(
        unit
        for unit in units
        if unit.unseen and unit.named and not unit.group and unit.terms[0].role == (POINTED if unit.cjk else MODIFIER)
    )


def value_groups(terms: tuple[Term, ...] | list[Term]) -> frozenset[int]:
    """The groups that are an attribute with its value class ("什么颜色": the word 颜色 or a
    colour, :mod:`memory_core.text.value_classes`): one thing asked two ways, not "A or B"
    (the relative cutoff and the pruning proofs treat them as one subject)."""
    return frozenset(t.group for t in terms if t.group and is_value_class(t.feature))


def choice_groups(terms: tuple[Term, ...] | list[Term]) -> frozenset[int]:
    """The groups of alternatives a question offers ("SQLite or PostgreSQL")."""
    values = value_groups(terms)
    return frozenset(t.group for t in terms if t.group and t.group not in values)


def unit_slots(units: tuple[Unit, ...]) -> list[tuple[Unit, ...]]:
    """Units as the question counts them: alternatives joined by "or"/"和" fill one slot."""
    slots: dict[object, list[Unit]] = {}
    for n, unit in enumerate(units):
        slots.setdefault(("group", unit.group) if unit.group else n, []).append(unit)
    return [tuple(v) for v in slots.values()]


def active_units(units: tuple[Unit, ...], masks: Mapping[str, int], weights: Mapping[str, float]) -> tuple[Unit, ...]:
    """The units a claim is judged on: of a set of alternatives, those it does not mention
    are dropped once it mentions one of them ("SQLite or PostgreSQL" asks about either)."""
    if not any(u.group for u in units):
        return units
    hit_groups = {u.group for u in units if u.group and u.matched(masks, weights, ~0)}
    # A value class is the attribute asked another way: a claim holding neither is judged
    # against the attribute alone, as before the question asked for a value, and one holding
    # both against the heavier of the two once.
    hits = [u for u in units if u.group in hit_groups and u.matched(masks, weights, ~0)]
    # Both halves of a value group found: the heavier one only (as the score counts it).
    dropped = doubled({u.terms[0].feature for u in hits}, value_pairs(units), weights)
    return tuple(
        u
        for u in units
        if not u.group
        or (u.group in hit_groups and u.matched(masks, weights, ~0) and u.terms[0].feature not in dropped)
        or (u.group not in hit_groups and not is_value_class(u.terms[0].feature))
    )


def value_pairs(units: tuple[Unit, ...] | tuple[Term, ...]) -> list[tuple[str, str]]:
    """(value class, attribute word) of each value group among a question's units or terms."""

    def feature(x: Unit | Term) -> str:
        return x.terms[0].feature if isinstance(x, Unit) else x.feature

    return [
        (feature(v), feature(w))
        for v in units
        if is_value_class(feature(v))
        for w in units
        if w.group == v.group and not is_value_class(feature(w))
    ]


def doubled(present: set[str] | frozenset[str], pairs: list[tuple[str, str]], weights: Mapping[str, float]) -> set[str]:
    """Of each attribute word and value class both ``present``, the one that counts less (the
    class on a tie): holding both is one answer, credited once."""
    return {
        word if weights.get(word, 0.0) < weights.get(value, 0.0) else value
        for value, word in pairs
        if value in present and word in present
    }
