"""A query's features: the asking part of its text, its distinct features grouped into
units (a word, a concept, a Chinese segment's bigrams), and subjects joined as alternatives.

The features are the index's (:mod:`memory_core.text.tokenize`); only a query is cut after
a self-correction, stripped of recall framing and relative time
(:func:`memory_core.text.asking.query_text`), and grouped.
"""

from __future__ import annotations

import functools
import re
from collections import namedtuple
from collections.abc import Iterable

from memory_core.text.asking import query_text
from memory_core.text.concepts import BY_FEATURE, CHINESE, ENGLISH
from memory_core.text.grammar import ASKED, AUXILIARY, CONJUNCTION, VERB, word_roles
from memory_core.text.grammar_zh import task_verbs
from memory_core.text.subject_roles import pointed_roles, possessor_roles
from memory_core.text.tokenize import CJK, CONCEPT, LITERAL, MARKER, NUMBER, WORD, normalize, split_units
from memory_core.text.value_classes import VALUE_CLASSES, asked_by_phrase, asked_value
from memory_core.text.vocabulary import QUERY_FILLER

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import NamedTuple


# The fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the
# same class) at run time, whose fields ``typing`` need not compile one annotation string at
# a time on every start of the per-turn hook (docs/hooks.md, "Cost"; a test compares the two).
if TYPE_CHECKING:

    class _TermFields(NamedTuple):
        feature: str
        unit: int
        kind: str
        attribute: bool = False
        generic: bool = False
        # Non-zero for subjects joined as alternatives ("A or B"); they share the number.
        group: int = 0
        # A word's place in the question's grammar (:mod:`memory_core.text.grammar`): "verb"
        # (how it asks, or what the user is about to do: never the subject it names),
        # "asked" (a word of its wh-phrase, or completing an attribute: what it asks, not
        # about what), "modifier" (a word before another of its noun phrase), or "".
        role: str = ""

else:
    _TermFields = namedtuple(
        "Term",
        ("feature", "unit", "kind", "attribute", "generic", "group", "role"),
        defaults=(False, False, 0, ""),
    )


class Term(_TermFields):
    """One query feature and what kind of thing it is.

    Terms with the same ``unit`` form one subject: the bigrams of one Chinese segment.
    Subjects joined by a conjunction share a ``group``.
    """

    __slots__ = ()

    @property
    def literal(self) -> bool:
        return self.kind == LITERAL

    @property
    def numeric(self) -> bool:
        return self.kind == NUMBER

    @property
    def verb(self) -> bool:
        return self.role == VERB


def _is_alternative(kind: str, feature: str) -> bool:
    if kind == CONCEPT:
        concept = BY_FEATURE.get(feature)
        return concept is not None and not concept.attribute
    return kind in (WORD, LITERAL, CJK)


def _roles(text: str) -> dict[str, str]:
    """The word features of the words of ``text`` that have a grammatical role, with it."""
    roles = word_roles(text)
    out: dict[str, str] = {}
    for word, role in roles.items():
        for unit in split_units(word, expand=False):
            for feature, kind in unit:
                # A concept read from a word in a verb's place is the act, not a subject
                # ("we've got to *migrate* …", "let's *deploy* …").
                if kind == WORD or (kind == CONCEPT and role == VERB):
                    out.setdefault(feature, role)
    for feature, role in _phrase_roles(text).items():  # the grammar's roles come first
        out.setdefault(feature, role)
    return out


_LATIN_WORD = re.compile(r"[a-z][a-z0-9'-]*")
# Beyond this many words a text is no short question whose noun phrases matter here.
MAX_PHRASE_WORDS = 24
# The role of the first word of a noun phrase right before another content word of it,
# with nothing between ("the *Traefik* reverse proxy", "the *Kafka* broker"): a name
# modifying a head.
MODIFIER = "modifier"
_DETERMINERS = frozenset("the a an this that these those my our your their".split())
_CJK_NEXT = re.compile("\\s*[\u4e00-\u9fff]")  # a Latin name before Chinese words: "Traefik 反向代理"


def _phrase_roles(text: str) -> dict[str, str]:
    """Roles read from a short question's noun phrases: a word right after an attribute
    word completes what is asked ("port *number*", :data:`ASKED`); the first word of a
    noun phrase right before another of its words modifies it (:data:`MODIFIER`).

    Only the words next to a determiner or to another word are read (each once per process):
    this runs for every text of every prompt."""
    out: dict[str, str] = {}
    matches = list(_LATIN_WORD.finditer(text))
    if len(matches) > MAX_PHRASE_WORDS:
        return out
    for n, match in enumerate(matches):
        adjacent_before = n > 0 and _adjacent(text, matches[n - 1], match)
        opens = _starts_phrase(text, matches, n)
        if not (adjacent_before or opens) or match.group() in _DETERMINERS:
            continue
        features = _features_of(match.group())
        if len(features) != 1 or features[0][1] != WORD:
            continue
        if adjacent_before and _is_attribute(_features_of(matches[n - 1].group())):
            out.setdefault(features[0][0], ASKED)
        elif opens and (
            (n + 1 < len(matches) and _adjacent(text, match, matches[n + 1]) and _features_of(matches[n + 1].group()))
            or _CJK_NEXT.match(text, match.end())
        ):
            out.setdefault(features[0][0], MODIFIER)
    return out


@functools.lru_cache(maxsize=4096)
def _features_of(word: str) -> tuple[tuple[str, str], ...]:
    return tuple(f for unit in split_units(word, expand=False) for f in unit)


def _is_attribute(features: tuple[tuple[str, str], ...]) -> bool:
    return any(
        kind == CONCEPT and (concept := BY_FEATURE.get(feature)) is not None and concept.attribute
        for feature, kind in features
    )


def _starts_phrase(text: str, matches: list[re.Match[str]], n: int) -> bool:
    """Whether word ``n`` opens a noun phrase: right after a determiner ("the *Kafka*
    broker"), or first in the text ("*Traefik* 反向代理 …")."""
    if n == 0:
        return not text[: matches[0].start()].strip()
    return matches[n - 1].group() in _DETERMINERS and _adjacent(text, matches[n - 1], matches[n])


def _adjacent(text: str, first: re.Match[str], second: re.Match[str]) -> bool:
    return not text[first.end() : second.start()].strip()


def query_terms(text: str) -> list[Term]:
    """The distinct features of a query, grouped into units, framing removed."""
    asking, stated_tasks = task_verbs(query_text(text))
    roles = _roles(asking)
    for feature, role in pointed_roles(asking).items():
        roles.setdefault(feature, role)
    roles.update(possessor_roles(asking))
    for span in stated_tasks:  # the act of a task stated in Chinese, not its subject
        for unit in split_units(span, expand=False):
            for feature, kind in unit:
                if kind == CJK:
                    roles.setdefault(feature, VERB)
    terms: list[Term] = []
    seen: set[str] = set()
    unit_id = 0
    groups: dict[int, int] = {}  # unit -> alternative group
    last_subject: int | None = None
    joined = False
    for unit in split_units(asking, expand=False):
        if unit is MARKER:
            joined = last_subject is not None
            continue
        added = False
        for feature, kind in unit:
            if feature in seen or (kind == WORD and (feature in QUERY_FILLER or roles.get(feature) == CONJUNCTION)):
                continue
            seen.add(feature)
            concept = BY_FEATURE.get(feature) if kind == CONCEPT else None
            terms.append(
                Term(
                    feature,
                    unit_id,
                    kind,
                    attribute=bool(concept and concept.attribute),
                    generic=bool(concept and concept.generic),
                    role=roles.get(feature, "") if kind in (WORD, CONCEPT, CJK) else "",
                )
            )
            added = True
        if not added:
            continue
        subject = _is_alternative(unit[0][1], unit[0][0])
        if joined and subject and last_subject is not None:
            groups[unit_id] = groups.setdefault(last_subject, last_subject + 1)
        last_subject = unit_id if subject else None
        joined = False
        unit_id += 1
    if groups:
        terms = [t._replace(group=groups.get(t.unit, 0)) for t in terms]
    terms = _asked_by_phrase(terms, text)
    return _asked_values(_completed_attributes(_counted_kinds(_counted_words(terms, text), text), asking), text)


@functools.cache
def _counting() -> re.Pattern[str]:
    """An attribute word right after a count ("有几个地方", "几家店", "how many places"): the
    kind of thing counted, built from the concept map's attribute forms. A Chinese count has
    its measure word (几个, 多少家): "多少费用" asks an amount, "哪些端口" which values."""
    zh = {f for c in BY_FEATURE.values() if c.attribute for f in c.chinese}
    en = {f for c in BY_FEATURE.values() if c.attribute for f in c.english}
    return re.compile(
        f"(?:几|多少)(?:个|家|处|座|间|所|种|位)({_either(zh)})"
        rf"|\bhow\s+many\s+(?:[a-z-]+\s+)?({_either(en)})\b"
    )


@functools.cache
def concept_forms(feature: str) -> re.Pattern[str]:
    """Every written form of an attribute concept (English as whole words)."""
    concept = BY_FEATURE[feature]
    alternatives = [_either(concept.chinese)] if concept.chinese else []
    if concept.english:
        alternatives.append(rf"\b(?:{_either(concept.english)})\b")
    return re.compile("|".join(alternatives))


def _either(words: Iterable[str]) -> str:
    """An alternation of ``words``, longest first, then by the text: one pattern string in
    every process (a set's order changes with the hash seed), so the regex cache holds it
    once (cli/regex_cache.py)."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


# The counted noun: the word after "how many", or the second of two before an auxiliary
# ("how many rabbitmq *brokers* are there?": the first names whose).
_HOW_MANY = re.compile(
    rf"\bhow\s+many\s+(?:[a-z][a-z0-9'-]*\s+(?=[a-z][a-z0-9'-]*\s+{AUXILIARY}\b))?([a-z][a-z0-9'-]*)"
)


def _counted_words(terms: list[Term], text: str) -> list[Term]:
    """The word a question counts ("how many *people* report to me?") is the kind asked, as
    a wh-phrase's word is: the answers count its instances ("two junior PMs report to me"),
    seldom with the word. ("how many" itself is framing, gone from the asking part.)"""
    if "many" not in text.lower():
        return terms
    counted = {
        feature
        for match in _HOW_MANY.finditer(normalize(text))
        for unit in split_units(match.group(1), expand=False)
        for feature, kind in unit
        if kind == WORD
    }
    if not counted:
        return terms
    return [t._replace(role=ASKED) if t.feature in counted and t.kind == WORD and t.role != VERB else t for t in terms]


def _counted_kinds(terms: list[Term], text: str) -> list[Term]:
    """An attribute concept named as the kind of thing a question counts ("有几个*地方*在西湖区？",
    "how many *places* …") is what the answers are, not a detail each must name: "外婆家的地址
    是杭州市西湖区…" is one of the places without the word. It stays a term, no longer an
    attribute, unless the question also names it where it counts nothing ("how many colours
    are in the guide, and what colour is the logo?")."""
    attributes = {t.feature for t in terms if t.attribute and t.kind == CONCEPT}
    if not attributes:
        return terms
    normalized = normalize(text)
    counted: dict[str, int] = {}
    for match in _counting().finditer(normalized):
        form = match.group(1) or match.group(2)
        feature = CHINESE.get(form) if match.group(1) else ENGLISH.get(form)
        if feature in attributes:
            counted[feature] = counted.get(feature, 0) + 1
    kinds = {f for f, n in counted.items() if len(concept_forms(f).findall(normalized)) <= n}
    if not kinds:
        return terms
    return [t._replace(attribute=False) if t.feature in kinds and t.kind == CONCEPT else t for t in terms]


# A clause ends at a sentence mark followed by a space or the end ("vercel.com" is one word).
_CLAUSE_END = re.compile(r"(?<=[.?!;])(?=\s|$)|(?<=[\n。？！；])")


def _asked_by_phrase(terms: list[Term], text: str) -> list[Term]:
    """An attribute English asks by a phrase alone ("*how old* is my cousin?") joins the query as
    its concept, as if its word were there (its phrase is framing the asking part leaves out)."""
    asked = [c for c in asked_by_phrase(normalize(text)) if not any(t.feature == c for t in terms)]
    if not asked:
        return terms
    unit = 1 + max((t.unit for t in terms), default=-1)
    out = list(terms)
    for n, concept in enumerate(asked):
        out.append(Term(concept, unit + n, CONCEPT, attribute=BY_FEATURE[concept].attribute))
    return out


def _asked_values(terms: list[Term], text: str) -> list[Term]:
    """An attribute whose value the question asks for ("什么颜色", "how much did it cost")
    gets its value class (:mod:`memory_core.text.value_classes`) as an alternative: a claim
    stating a colour or an amount answers it without the attribute's word. Read on each
    clause of the whole question as written (framing such as "how much" is already gone from
    the asking part) and without its recall framing ("do you remember the SQLite port?")."""
    # (Every concept with a class is an attribute but the job, a subject of its own too; so
    # is the one word with a class, a car.)
    concepts = [t for t in terms if t.feature in VALUE_CLASSES]
    if not concepts:
        return terms
    # Only the clause that names the attribute: "cut the cost of the build. How much time
    # does the suite take?" asks no cost.
    clauses = [c for c in _CLAUSE_END.split(normalize(text)) if c.strip()]
    out = list(terms)
    fresh = 1 + max(max(t.unit for t in terms), max(t.group for t in terms))
    for term in concepts:
        value = next(
            (
                found
                for clause in clauses
                if (found := asked_value(term.feature, clause) or asked_value(term.feature, query_text(clause).strip()))
                is not None
                and (
                    any(f == term.feature for unit in split_units(clause, expand=False) for f, _ in unit)
                    or term.feature in asked_by_phrase(clause)
                )
            ),
            None,
        )
        if value is None or any(t.feature == value for t in out):
            continue
        group = term.group or fresh
        fresh += 1
        unit = 1 + max(t.unit for t in out)
        out = [t._replace(group=group) if t.unit == term.unit else t for t in out]
        out.append(Term(value, unit, CONCEPT, attribute=term.attribute, group=group))
    return out


def _completed_attributes(terms: list[Term], text: str) -> list[Term]:
    """A lone Chinese character written right after an attribute word completes it
    ("端口*号*", "文件*名*"): what is asked, not a second subject."""
    attributes = {t.unit: t.feature for t in terms if t.attribute and t.kind == CONCEPT}
    if not attributes:
        return terms
    completing = set()
    for term in terms:
        concept = BY_FEATURE.get(attributes.get(term.unit - 1, ""))
        if term.kind != CJK or len(term.feature) != 1 or concept is None:
            continue
        if sum(t.unit == term.unit for t in terms) == 1 and any(w + term.feature in text for w in concept.chinese):
            completing.add(term.unit)
    if not completing:
        return terms
    return [t._replace(role=ASKED) if t.unit in completing and not t.role else t for t in terms]
