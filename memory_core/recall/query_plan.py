"""What a turn is asking about, read from the user's recent messages.

The last few user texts are replayed oldest first. Each one either names a subject of its
own (and stands alone), asks only about attributes or points back with a pronoun (and is
read as a follow-up: its own terms are the *focus*, the last named subject is supporting
*context*), says nothing topical ("continue": it repeats the last plan), or resets the
topic. Only the last subject is carried, never a concatenation of every earlier facet:
after ``SQLite → port? → auth?`` the plan is "auth, in the context of SQLite", so an old
port match is no answer about authentication.

The words of the earlier texts (since the last reset) that neither the focus nor the
context holds are the conversation's *background*: they never qualify a claim and add
nothing to its score, but a claim that answers the focus and also holds some of them is
the more likely answer, so they count toward its coverage (see
:meth:`memory_core.recall.scoring.PlanScorer.coverage`).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from memory_core.text.asked_kind import asked_kind
from memory_core.text.concepts import BY_FEATURE
from memory_core.text.follow_up import MAX_ANAPHORIC_UNITS as MAX_ANAPHORIC_UNITS
from memory_core.text.follow_up import MAX_CONTINUATION_CHARS as MAX_CONTINUATION_CHARS
from memory_core.text.follow_up import is_continuation, is_subject, points_back
from memory_core.text.grammar import asks_current, asks_place_or_time, describes_subject, two_events
from memory_core.text.query_features import Term, query_terms
from memory_core.text.requests import asks_reply
from memory_core.text.time_anchor import read_window
from memory_core.text.tokenize import normalize, split_units
from memory_core.text.value_classes import is_value_class
from memory_core.text.vocabulary import ANAPHORA, RESET

MAX_TEXTS = 6
MAX_TEXT_BYTES = 2048
# Only this many trailing texts are even looked at when slots are formed.
MAX_EXAMINED = 4096
# The most terms one text contributes to a plan (half from its start, half from its end):
# far more than any question names, so it only bounds the index reads of a pasted wall of text.
MAX_QUERY_TERMS = 256
# The most background terms a plan carries (the most recent earlier texts first): enough
# for a conversation's subjects, and a bound on what a pasted wall of text makes recall read.
MAX_BACKGROUND_TERMS = 64


# The fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the
# same class) at run time, whose fields ``typing`` need not compile one annotation string at
# a time on every start of the per-turn hook (docs/hooks.md, "Cost"; a test compares the two).
if TYPE_CHECKING:

    class KindAsked(NamedTuple):
        """The features of the word naming the kind asked, of the words qualifying it, and
        of the question's passive verb ("what charting library is used …": ``~library``,
        ``chart``, ``use``)."""

        word: tuple[str, ...]
        qualifiers: tuple[str, ...]
        verb: tuple[str, ...]

else:
    KindAsked = namedtuple("KindAsked", ("word", "qualifiers", "verb"))


if TYPE_CHECKING:

    class _QueryPlanFields(NamedTuple):
        focus: tuple[Term, ...]
        context: tuple[Term, ...] = ()
        # standalone | follow_up | inherited | empty | reset
        mode: str = "standalone"
        # Words of the earlier texts that neither the focus nor the context holds: they support
        # a claim that answers the focus (coverage), never qualify or score one.
        background: tuple[Term, ...] = ()
        # The question asks where or when (:func:`memory_core.text.grammar.asks_place_or_time`):
        # a value of its subject, as an attribute word does.
        asks_value: bool = False
        # The question picks out its subject by a relative clause, not a name
        # (:func:`memory_core.text.grammar.describes_subject`): the clause is a condition.
        describes: bool = False
        # The question asks what holds now (:func:`memory_core.text.grammar.asks_current`):
        # a newer claim answering the same words supersedes an older one.
        asks_current: bool = False
        # The two events a question of order or of time between joins, as written
        # (:func:`memory_core.text.grammar.two_events`): each is answered on its own.
        events: tuple[str, ...] = ()
        # The time the question names (:func:`memory_core.text.time_anchor.read`), or ``()``:
        # claims dated within it answer that part of the question (:mod:`memory_core.recall.dated`).
        window: tuple = ()
        # The question asks only what happened then ("what did I do yesterday?"): the claims
        # dated within ``window`` are the answer, whatever their words.
        window_only: bool = False
        # The question asks what the assistant said or gave (:func:`memory_core.recall.replies.asks_reply`):
        # the reply to a request recall chose answers in its place.
        asks_reply: bool = False
        # The kind of thing the question asks (:func:`memory_core.text.asked_kind.asked_kind`),
        # as features: an answer names an instance, and need not hold the kind's word.
        kind: KindAsked | None = None

else:
    _QueryPlanFields = namedtuple(
        "QueryPlan",
        (
            "focus",
            "context",
            "mode",
            "background",
            "asks_value",
            "describes",
            "asks_current",
            "events",
            "window",
            "window_only",
            "asks_reply",
            "kind",
        ),
        defaults=((), "standalone", (), False, False, False, (), (), False, False, None),
    )


class QueryPlan(_QueryPlanFields):
    """Focus terms that must be answered, and context terms that only support them."""

    __slots__ = ()

    @property
    def is_empty(self) -> bool:
        """True when the plan asks about no words (recall then returns nothing, or, for a
        question asking only what happened at a time, the claims dated then)."""
        return not self.focus


EMPTY = QueryPlan((), (), "empty")


def clip_text(text: str, limit: int = MAX_TEXT_BYTES) -> str:
    """At most ``limit`` UTF-8 bytes: the head and the tail of a long text, whole characters only.

    The start of a message usually names its topic and the end usually holds the question,
    so both halves are kept.
    """
    if len(text) > 2 * limit:  # only the ends can be kept: never encode the middle
        text = text[:limit] + text[-limit:]
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= limit:
        return text
    half = limit // 2
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[len(data) - (limit - half - 1) :].decode("utf-8", errors="ignore")
    return head + "\n" + tail


# Fields given as types: see :class:`QueryPlan`.
class _Reading(
    NamedTuple(
        "_Reading",
        [
            ("terms", tuple[Term, ...]),
            ("reset", bool),
            ("anaphoric", bool),
            ("asks_value", bool),
            ("describes", bool),
            ("asks_current", bool),
            ("events", tuple[str, ...]),
            ("window", tuple),
            ("window_only", bool),
            ("asks_reply", bool),
            ("kind", KindAsked | None),
        ],
    )
):
    __slots__ = ()


def bound_terms(terms: list[Term]) -> list[Term]:
    """At most :data:`MAX_QUERY_TERMS` terms: the first and the last half of them."""
    if len(terms) <= MAX_QUERY_TERMS:
        return terms
    half = MAX_QUERY_TERMS // 2
    return terms[:half] + terms[-half:]


def _read(text: str) -> _Reading:
    reset = bool(RESET.search(text))
    body = RESET.sub(" ", text) if reset else text
    if is_continuation(body):
        return _Reading((), reset, False, False, False, False, (), (), False, False, None)
    text = normalize(body)
    window, window_only = read_window(text)
    terms = tuple(bound_terms(query_terms(body)))
    return _Reading(
        terms,
        reset,
        bool(ANAPHORA.search(body)),
        asks_place_or_time(text),
        describes_subject(text),
        asks_current(text),
        two_events(text, body) or (),
        window,
        window_only,
        asks_reply(text),
        _kind(text),
    )


def _features(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(feature for word in words for unit in split_units(word, expand=False) for feature, _ in unit)


def _kind(text: str) -> KindAsked | None:
    asked = asked_kind(text)
    if asked is None:
        return None
    word = _features([asked.word])
    if any((concept := BY_FEATURE.get(f)) is not None and concept.attribute for f in word):
        return None  # an attribute asked ("what port …") is asked as its value classes are
    return KindAsked(word, _features(asked.qualifiers), _features([asked.verb] if asked.verb else []))


def conversation_slots(texts: Sequence[str]) -> list[str]:
    """The last :data:`MAX_TEXTS` texts, a run of bare continuations sharing one slot.

    "continue, continue, continue" must not push the subject they continue out of reach.
    """
    slots: list[str] = []
    for text in list(texts)[-MAX_EXAMINED:]:
        if slots and is_continuation(text) and is_continuation(slots[-1]):
            continue
        slots.append(text)
    return slots[-MAX_TEXTS:]


def plan_query(query: str) -> QueryPlan:
    """The plan of one explicit query, with no conversation to inherit from."""
    return build_plan([query])


def build_plan(texts: Sequence[str]) -> QueryPlan:
    """Replay up to :data:`MAX_TEXTS` user texts (oldest first) into the plan for the last one."""
    subject: tuple[Term, ...] = ()
    plan: QueryPlan = EMPTY
    # The terms of each text since the last reset, and of those before the current one.
    history: list[tuple[Term, ...]] = []
    earlier: list[tuple[Term, ...]] = []
    for text in [clip_text(t) for t in conversation_slots(texts)]:
        reading = _read(text)
        if reading.reset:
            subject, plan = (), QueryPlan((), (), "reset")
            history = []
        earlier = list(history)
        history.append(reading.terms)
        if not reading.terms:
            # Nothing topical: keep asking about the last plan (or about nothing), at the time
            # this text names, if it names one ("and yesterday?").
            if reading.window_only:
                plan = QueryPlan((), (), "dated", window=reading.window, window_only=True)
            elif not plan.is_empty:
                plan = plan._replace(mode="inherited", window=reading.window or plan.window)
            continue
        subjects = tuple(t for t in reading.terms if is_subject(t))
        if subject and points_back(reading.terms, reading.anaphoric):
            own = {t.feature for t in reading.terms}
            context = tuple(t for t in subject if t.feature not in own)
            mode = "follow_up" if context else "standalone"
            plan = QueryPlan(
                reading.terms,
                context,
                mode,
                (),
                reading.asks_value,
                reading.describes,
                reading.asks_current,
                reading.events,
                reading.window,
                False,
                reading.asks_reply,
                reading.kind,
            )
        else:
            plan = QueryPlan(
                reading.terms,
                (),
                "standalone",
                (),
                reading.asks_value,
                reading.describes,
                reading.asks_current,
                reading.events,
                reading.window,
                reading.window_only,
                reading.asks_reply,
                reading.kind,
            )
            if subjects:
                subject = subjects
    if plan.is_empty or not earlier:
        return plan
    return plan._replace(background=_background(plan, earlier))


def _background(plan: QueryPlan, earlier: list[tuple[Term, ...]]) -> tuple[Term, ...]:
    """The earlier texts' non-generic terms the plan does not hold, the most recent text
    first, at most :data:`MAX_BACKGROUND_TERMS`; each text's units renumbered apart."""
    taken = {t.feature for t in (*plan.focus, *plan.context)}
    chosen: dict[str, Term] = {}
    offset = 1 + max((t.unit for t in (*plan.focus, *plan.context)), default=0)
    for terms in reversed(earlier):
        for term in terms:
            if term.generic or term.feature in taken or term.feature in chosen or is_value_class(term.feature):
                continue
            if len(chosen) >= MAX_BACKGROUND_TERMS:
                return tuple(chosen.values())
            chosen[term.feature] = term._replace(unit=offset + term.unit, group=0)
        offset += 1 + max((t.unit for t in terms), default=0)
    return tuple(chosen.values())
