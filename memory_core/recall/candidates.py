"""Reading candidates for a plan from the index: postings of the query's features only.

No step scans every claim. Candidates are enumerated from the posting lists that any
eligible claim *must* appear in, and the remaining features are then looked up for those
candidates alone:

* if a feature is mandatory (a literal no origin carries, an attribute of a short
  named-attribute query, a written-out context subject no origin carries), the shortest
  such list is enough;
* otherwise a claim can only reach the focus-coverage threshold by matching one of the
  heavier features, and it can only qualify through a non-generic feature; whichever of
  those two groups has the shorter lists is enumerated.

Candidates come back ordered by an upper bound of their relevance, so the caller can
score the most promising ones first and stop once the bound proves that no unscored
candidate could pass the relative cutoff.

A posting list longer than :data:`MAX_LIST_CLAIMS` is read only as far as its most
recently updated claims when it enumerates candidates, so a query's work stops growing with
the corpus; lists read for the candidates already found, and deferred lookups, stay exact.

Origins are matched through the per-origin header rows, never per claim.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, overload

from memory_core.recall import index
from memory_core.recall.index import Headers
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.scoring import (
    CONTEXT_WEIGHT,
    FIELD_BITS,
    ORIGIN,
    ORIGIN_FACTOR,
    Evaluation,
    PlanScorer,
    field_strength,
)
from memory_core.store.engines.dbapi import DbConn
from memory_core.text.tokenize import origin_features

# A bound: candidates come from at most this many claims of each enumerated posting list,
# its most recently updated ones. A word held by more claims than this is common enough
# that older claims holding it are left to the query's other, rarer words.
MAX_LIST_CLAIMS = 1024


def _mandatory(scorer: PlanScorer, headers: Headers) -> list[str]:
    """Features every eligible claim must hold in its own postings."""
    must: list[str] = []
    for term in scorer.focus:
        if term.literal and not term.group and term.feature not in headers.origins:
            must.append(term.feature)
    if scorer.named_attribute is not None:
        subject, attributes = scorer.named_attribute
        # One asked attribute must be present; of several, any one may be.
        if len(attributes) == 1 and len(attributes[0].terms) == 1:
            must.append(attributes[0].terms[0].feature)
        if len(subject) == 1 and len(subject[0].terms) == 1:
            feature = subject[0].terms[0].feature
            if feature not in headers.origins:
                must.append(feature)
    for unit in scorer.context_units:
        single = unit.terms[0].feature
        if unit.named and not unit.group and len(unit.terms) == 1 and single not in headers.origins:
            must.append(single)
    return must


def _generators(scorer: PlanScorer, headers: Headers) -> list[str]:
    """Posting lists whose union contains every claim that could pass the gates."""
    df = headers.document_frequency
    must = _mandatory(scorer, headers)
    if must:
        return [min(must, key=lambda f: df.get(f, 0))]
    weights = scorer.weights
    focus = sorted(scorer.focus, key=lambda t: (weights[t.feature], t.feature))
    origin_matchable = sum(weights[t.feature] for t in focus if t.feature in headers.origins)
    threshold = scorer.min_focus_found
    # Grow the set of light features a claim could match without ever reaching coverage,
    # even if every origin-matchable feature outside it matched through the origin.
    light: set[str] = set()
    running = 0.0
    for term in focus:
        w = weights[term.feature]
        free = origin_matchable - (w if term.feature in headers.origins else 0.0)
        if running + w + free >= threshold:
            break
        running += w
        origin_matchable = free
        light.add(term.feature)
    heavy = [t.feature for t in focus if t.feature not in light]
    qualifying = [t.feature for t in focus if not t.generic and t.feature not in scorer.common]
    heavy_cost = sum(df.get(f, 0) for f in heavy)
    qualifying_cost = sum(df.get(f, 0) for f in qualifying)
    return heavy if heavy_cost <= qualifying_cost else qualifying


class BestFirst(Sequence[str]):
    """Candidate ids, best bound first and ties in id order, sorted only as far as they are read.

    The engine usually stops after a few hundred candidates, while a common word can offer
    tens of thousands: ids are grouped by their bound, and a group is put in id order only
    when something reads into it. Reading any part gives what sorting everything would.
    """

    def __init__(self, upper: dict[str, float]) -> None:
        groups: dict[float, list[str]] = {}
        for memory_id, bound in upper.items():
            group = groups.get(bound)
            if group is None:
                groups[bound] = [memory_id]
            else:
                group.append(memory_id)
        self._pending = [groups[bound] for bound in sorted(groups, reverse=True)][::-1]
        self._sorted: list[str] = []
        self._length = len(upper)

    def _upto(self, end: int) -> list[str]:
        while len(self._sorted) < end and self._pending:
            self._sorted += sorted(self._pending.pop())
        return self._sorted

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            done = self._upto(self._length if step < 0 else stop)
            return [done[i] for i in range(start, stop, step)]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._upto(index + 1)[index]


class Lists(
    NamedTuple(
        "Lists",
        [
            ("read", Callable[[DbConn, str], list[tuple[str, str]]]),
            ("recent", Callable[[DbConn, str, int], list[tuple[str, str]]]),
            ("probe", Callable[[DbConn, str, Sequence[str]], list[tuple[str, str]]]),
        ],
    )
):
    """How to read posting lists: of claims, or of bodies (claims with the same indexed
    fields, read once however many claims repeat them). Ids are text either way."""

    __slots__ = ()


CLAIM_LISTS = Lists(index.read_posting_list, index.read_recent_postings, index.probe_postings)
BODY_LISTS = Lists(index.read_body_list, index.read_recent_bodies, index.probe_bodies)


# Fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the same
# class) at run time, whose fields ``typing`` need not compile one annotation string at a time
# on every start of the per-turn hook (docs/hooks.md, "Cost"; tests/recall/test_record_classes.py).
if TYPE_CHECKING:

    class _RetrievalFields(NamedTuple):
        headers: Headers
        scorer: PlanScorer
        masks: dict[str, dict[str, int]]
        order: BestFirst
        upper: dict[str, float]
        deferred: tuple[str, ...]
        slack: float
        # Evaluations by pattern of masks, and optimistic verdicts by pattern (see :meth:`judge`).
        patterns: dict[tuple[tuple[str, int], ...], Evaluation]
        hopes: dict[tuple[tuple[str, int], ...], tuple[float, str | None]]
        # Enumerated features of which only the MAX_LIST_CLAIMS most recent claims were read.
        capped: tuple[str, ...] = ()
        lists: Lists = CLAIM_LISTS

else:
    _RetrievalFields = namedtuple(
        "Retrieval",
        ("headers", "scorer", "masks", "order", "upper", "deferred", "slack", "patterns", "hopes", "capped", "lists"),
        defaults=((), CLAIM_LISTS),
    )


class Retrieval(_RetrievalFields):
    """What the index said about a plan, with candidates ordered best-first by an upper bound.

    ``upper`` bounds a candidate's raw relevance from the postings already read; features
    too common to read in full (``deferred``) and origin matches are not in it, so
    ``slack`` is added to any bound about unread candidates.
    """

    __slots__ = ()

    def judge(self, found: dict[str, int]) -> Evaluation:
        """The scorer's verdict on ``found`` without the length factor (``raw`` is the bare
        score: multiply by :func:`~memory_core.recall.scoring.length_factor`), worked out once
        per pattern: many candidates share one (a common query word alone, say)."""
        key = tuple(found.items())
        known = self.patterns.get(key)
        if known is None:
            known = self.patterns[key] = self.scorer.evaluate(found, 1)
        return known

    def judge_optimistic(self, memory_id: str) -> tuple[float, str | None]:
        """Score and failed gate of a candidate as if every origin-matchable feature matched."""
        masks = self.masks[memory_id]
        key = tuple(masks.items())
        known = self.hopes.get(key)
        if known is None:
            e = self.judge(optimistic(masks, self.headers))
            known = self.hopes[key] = (e.raw, e.reason)
        return known


def add_postings(
    masks: dict[str, dict[str, int]], rows: Iterable[tuple[str, str]], feature: str, *, create: bool
) -> None:
    bits = FIELD_BITS
    get = masks.get
    for memory_id, field_name in rows:
        entry = get(memory_id)
        if entry is None:
            if create:
                masks[memory_id] = {feature: bits[field_name]}
            continue
        entry[feature] = entry.get(feature, 0) | bits[field_name]


def plan_features(plan: QueryPlan) -> list[str]:
    """The distinct features of a plan's focus, context and background."""
    return list(dict.fromkeys(t.feature for t in (*plan.focus, *plan.context, *plan.background)))


def retrieve(
    conn: DbConn,
    plan: QueryPlan,
    *,
    headers: Headers | None = None,
    lists: Lists = CLAIM_LISTS,
    lengths: Mapping[str, int] | None = None,
) -> Retrieval:
    """Index statistics, the plan's scorer, and the candidates with what is known of them.

    ``lists`` says whether candidates are claims or bodies; ``lengths`` are the lengths of
    its lists (claim lists: the document frequencies of ``headers``).
    """
    features = plan_features(plan)
    if headers is None:
        headers = index.read_headers(conn, features)
    scorer = PlanScorer(plan, headers.document_frequency, headers.total)
    empty = Retrieval(headers, scorer, {}, BestFirst({}), {}, (), 0.0, {}, {}, (), lists)
    if plan.is_empty or headers.total == 0:
        return empty
    df = headers.document_frequency
    length = df if lengths is None else lengths
    masks: dict[str, dict[str, int]] = {}
    generators = [f for f in _generators(scorer, headers) if df.get(f, 0) > 0]
    capped = tuple(f for f in generators if length.get(f, 0) > MAX_LIST_CLAIMS)
    for feature in generators:
        if feature in capped:
            rows = lists.recent(conn, feature, MAX_LIST_CLAIMS)
        else:
            rows = lists.read(conn, feature)
        add_postings(masks, rows, feature, create=True)
    if not masks:
        return empty
    deferred: list[str] = []
    for feature in features:
        if feature in generators or df.get(feature, 0) == 0:
            continue
        if length.get(feature, 0) <= len(masks):
            add_postings(masks, lists.read(conn, feature), feature, create=False)
        else:
            # Longer than the candidate list: look it up later, for the few candidates
            # that are actually scored.
            deferred.append(feature)
    weights = scorer.weights
    context = {t.feature for t in scorer.context}
    # Background words count toward coverage only, never toward the score.
    background = {t.feature for t in scorer.background}
    factor = {f: (0.0 if f in background else CONTEXT_WEIGHT if f in context else 1.0) * weights[f] for f in features}
    # What a feature adds to a bound, by where it was found: the same products as
    # ``factor * strength``, looked up instead of multiplied per posting.
    strength = [field_strength(b) for b in range(16)]
    adds = {f: [factor[f] * s for s in strength] for f in features if df.get(f, 0) > 0}
    upper: dict[str, float] = {}
    for memory_id, found in masks.items():
        bound = 0.0
        for feature, found_bits in found.items():
            bound += adds[feature][found_bits]
        upper[memory_id] = bound
    slack = sum(factor[f] for f in deferred)
    slack += sum(factor[f] * ORIGIN_FACTOR for f in headers.origins if f in factor and f not in deferred)
    return Retrieval(headers, scorer, masks, BestFirst(upper), upper, tuple(deferred), slack, {}, {}, capped, lists)


def complete(conn: DbConn, retrieval: Retrieval, memory_ids: list[str]) -> None:
    """Look up the deferred (very common) features for the candidates about to be scored."""
    for feature in retrieval.deferred:
        add_postings(retrieval.masks, retrieval.lists.probe(conn, feature, memory_ids), feature, create=False)


def origin_masks(
    origin: str, headers: Headers, features: Iterable[str], cache: dict[str, dict[str, int]] | None = None
) -> dict[str, int]:
    """Origin-field bits for the query features that this claim's origin identifier carries."""
    if not headers.origins:
        return {}
    if cache is not None and origin in cache:
        return cache[origin]
    offered = set(origin_features(origin))
    found = {f: ORIGIN for f in features if f in offered and origin in headers.origins.get(f, ())}
    if cache is not None:
        cache[origin] = found
    return found


def optimistic(masks: dict[str, int], headers: Headers) -> dict[str, int]:
    """Masks as if every origin-matchable feature matched (a cheap upper bound for the gates)."""
    if not headers.origins:
        return masks
    merged = dict(masks)
    for feature in headers.origins:
        merged[feature] = merged.get(feature, 0) | ORIGIN
    return merged
