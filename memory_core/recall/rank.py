"""Ordering the claims that passed the relevance gates, and choosing the few to offer.

Relevance comes first: the relative cutoff compares *raw* relevance (among the claims about
the same alternative, when a question names alternatives such as "SQLite or PostgreSQL"):
a claim below :data:`RELATIVE_CUTOFF` (90 %) of the best one is dropped, so the quality
factors below only ever reorder claims that are about as relevant. (A claim that answers
another part of the question is added afterwards as complementary evidence, see
:mod:`memory_core.recall.complement`.) When more than :data:`MAX_EQUALLY_RELEVANT` distinct
claims of one origin survive the cutoff, the question does not pick any of them out (a
common word they all share, "Melanie ... camping" over eight camping trips): offering three
of them would be an arbitrary choice, so none of them is offered. Only the claims that
survive are ordered by

    rank = relevance * freshness * (1 + 0.04 * priority) * utility * accuracy

These factors are conservative policy weights, not probabilities that a claim is true.
Remaining ties go to the pinned claim, then the more recently updated, then the smaller id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.index import IndexedDoc
from memory_core.text.named_values import NAMED_VALUES

RELATIVE_CUTOFF = 0.9
# More distinct claims of one origin than this within the cutoff of the best (about the same
# alternative): the question picks none of them out, and none is offered (``ambiguous``).
MAX_EQUALLY_RELEVANT = 4
PRIORITY_STEP = 0.04
# A newer claim supersedes an older one (a question asking what holds now) only where the
# words they share are this many units of the question at least.
MIN_SUPERSEDING_UNITS = 2
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


class Candidate:
    """One claim that matched the query, with its scores and, if dropped, the reason.

    A plain slotted class with the constructor, ``repr`` and equality a dataclass would give
    it: defining a dataclass costs every hook process about 0.7 ms, and loading
    ``dataclasses`` more (docs/hooks.md, "Cost").
    """

    __slots__ = (
        "doc",
        "raw",
        "matched",
        "context_matched",
        "excluded",
        "alternatives",
        # Matches every focus feature some claim holds (see ``Evaluation.complete``).
        "complete",
        # Chosen as complementary evidence (answers what the other chosen claims left open).
        "complement",
        # The share of the question's focus weight it matches.
        "coverage",
        "freshness",
        "dormant",
        "rank",
        # The first firm gate it fails, if any, even after a soft one (see ``Evaluation.firm``).
        "firm",
        # Chosen as the answer to one of the two events the question joins (:mod:`.events`):
        # that event, as the question writes it.
        "event",
        # Taken as the reply to a request recall had chosen, for a question asking what the
        # assistant said (:mod:`.replies`): that request's id.
        "reply_to",
        # Taken as a later change of a chosen claim (:mod:`.changes`): that claim's id; or
        # "tied" for the newest change among claims tied too many to tell apart.
        "updates",
    )

    def __init__(
        self,
        doc: IndexedDoc,
        raw: float,
        matched: tuple[str, ...],
        context_matched: tuple[str, ...],
        excluded: str | None = None,
        alternatives: tuple[int, ...] = (),
        complete: bool = False,
        complement: bool = False,
        coverage: float = 0.0,
        freshness: float = 1.0,
        dormant: bool = False,
        rank: float = 0.0,
        firm: str | None = None,
        event: str = "",
        reply_to: str = "",
        updates: str = "",
    ) -> None:
        self.doc = doc
        self.raw = raw
        self.matched = matched
        self.context_matched = context_matched
        self.excluded = excluded
        self.alternatives = alternatives
        self.complete = complete
        self.complement = complement
        self.coverage = coverage
        self.freshness = freshness
        self.dormant = dormant
        self.rank = rank
        self.firm = firm
        self.event = event
        self.reply_to = reply_to
        self.updates = updates

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in Candidate.__slots__)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in Candidate.__slots__)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Candidate) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable

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
    supersede: Mapping[str, int] | None = None,
    values: Sequence[tuple[str, str]] = (),
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
    if eligible and relative_cutoff and values:
        _drop_valueless(eligible, values)
        eligible = [c for c in eligible if c.excluded is None]
    if eligible and relative_cutoff:
        best: dict[tuple[int, ...], float] = {}
        for c in eligible:
            best[c.alternatives] = max(best.get(c.alternatives, 0.0), c.raw)
        for c in eligible:
            if c.raw < RELATIVE_CUTOFF * best[c.alternatives]:
                c.excluded = "below_relative_cutoff"
        eligible = [c for c in eligible if c.excluded is None]
        _drop_ambiguous(eligible)
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
        if facet_redundancy and _redundant(c, chosen, values):
            c.excluded = "redundant_facet"
            continue
        if len(chosen) >= limit:
            c.excluded = "over_limit"
            continue
        seen_content.add(content_key)
        chosen.append(c)
    if supersede is not None and len(chosen) > 1:
        chosen = _newest(chosen, supersede)
    return chosen


def _newest(chosen: list[Candidate], units: Mapping[str, int]) -> list[Candidate]:
    """A question asking what holds now ("what is my *current* 5k best?") is answered by the
    newest of the chosen claims of one origin and kind that answer the same words: an older
    one whose matched features a newer one holds too states what held before
    (``superseded``). ``units`` gives each focus feature its unit of the question: the words
    shared must be two units at least, since one word ("where do I *live* now?" over "I live
    in Austin" and "my brother lives in Chicago") says nothing about being the same fact.
    Claims matching other words of the question stay."""
    kept = []
    for c in chosen:
        doc, words = c.doc, set(c.matched)
        if len({units[f] for f in words if f in units}) >= MIN_SUPERSEDING_UNITS and any(
            o is not c
            and o.doc.origin == doc.origin
            and o.doc.kind == doc.kind
            and o.doc.clock_at > doc.clock_at
            and words <= set(o.matched)
            for o in chosen
        ):
            c.excluded = "superseded"
        else:
            kept.append(c)
    return kept


def _drop_valueless(eligible: list[Candidate], values: Sequence[tuple[str, str]]) -> None:
    """Mark ``no_value`` the claims holding an asked attribute's word without a value of it,
    when another eligible claim holds a value ("我上司工作的地方在深圳" beside "我的上司是干建筑
    工人的" for "我上司是做什么工作的？"): the word alone states no value, and it must not
    outrank, and cut off, the claim that does. ``values`` pairs each value class with its
    attribute's concept (:func:`~memory_core.recall.query_units.value_pairs`)."""
    for value, attribute in values:
        if not any(value in c.matched for c in eligible):
            continue
        for c in eligible:
            if attribute in c.matched and value not in c.matched:
                c.excluded = "no_value"


def _drop_ambiguous(eligible: list[Candidate]) -> None:
    """Mark ``ambiguous`` the claims of one origin, about one alternative, when more than
    :data:`MAX_EQUALLY_RELEVANT` distinct claims of that origin answer about equally well.

    On the development data, questions leaving five or more claims within the cutoff were
    answered right by 1 in 11 of the claims offered (LoCoMo 2 of 62, MemDaily 6 of 27:
    "how old is my cousin" over five messages about the cousin), against about 1 in 2
    when a single claim stands out. Origins are counted apart, as for duplicates and
    facets: the same question answered once in each of five projects is five answers,
    not one project's indistinct notes.
    """
    distinct: dict[tuple[tuple[int, ...], str], set[str]] = {}
    for c in eligible:
        distinct.setdefault((c.alternatives, c.doc.origin), set()).add(c.doc.content_hash)
    for c in eligible:
        if len(distinct[(c.alternatives, c.doc.origin)]) > MAX_EQUALLY_RELEVANT:
            c.excluded = "ambiguous"


def _redundant(candidate: Candidate, chosen: list[Candidate], values: Sequence[tuple[str, str]] = ()) -> bool:
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
    # An attribute's word beside its value is one answer where the value is a name of that
    # attribute's lexicon: a claim naming "PostgreSQL" answers as much as one saying "the
    # database is PostgreSQL". (A value read by a pattern may be another attribute's: "叫杭州
    # 仁爱护理院" is a workplace's name, not the uncle's, beside "我舅舅的名字叫张伟明".)
    named = facets & NAMED_VALUES if candidate.complete else set()
    words = {word for value, word in values if value in named}
    for other in chosen:
        if other.doc.origin != candidate.doc.origin or other.doc.kind != candidate.doc.kind:
            continue
        theirs = set(other.matched)
        if facets < theirs and not theirs - facets <= words or (facets == theirs and not candidate.complete):
            return True
    return False


def mark_chosen(c: Candidate, *, now: float, complement: bool) -> Candidate:
    """``c`` marked as selected, aged and ranked (selection did not choose it itself)."""
    doc = c.doc
    c.excluded = None
    c.complement = complement
    c.freshness = freshness(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
    c.dormant = is_dormant(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
    c.rank = rank_score(c.raw, c.freshness, doc.priority, doc.utility, doc.accuracy)
    return c
