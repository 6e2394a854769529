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

Origins are matched through the per-origin header rows, never per claim.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memory_core.recall import index
from memory_core.recall.index import Headers
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.scoring import FIELD_BITS, MIN_FOCUS_COVERAGE, ORIGIN, PlanScorer
from memory_core.recall.tokenize import origin_features


def _mandatory(scorer: PlanScorer, headers: Headers) -> list[str]:
    """Features every eligible claim must hold in its own postings."""
    must: list[str] = []
    for term in scorer.focus:
        if term.literal and not term.group and term.feature not in headers.origins:
            must.append(term.feature)
    if scorer.named_attribute is not None:
        subject, attributes = scorer.named_attribute
        for unit in attributes:
            if len(unit.terms) == 1:
                must.append(unit.terms[0].feature)
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
    threshold = MIN_FOCUS_COVERAGE * scorer.min_focus_total
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
    qualifying = [t.feature for t in focus if not t.generic]
    heavy_cost = sum(df.get(f, 0) for f in heavy)
    qualifying_cost = sum(df.get(f, 0) for f in qualifying)
    return heavy if heavy_cost <= qualifying_cost else qualifying


def retrieve(conn: sqlite3.Connection, plan: QueryPlan) -> tuple[Headers, PlanScorer, dict[str, dict[str, int]]]:
    """Index statistics, the plan's scorer, and where each query feature occurs per candidate."""
    features = [t.feature for t in (*plan.focus, *plan.context)]
    headers = index.read_headers(conn, features)
    scorer = PlanScorer(plan, headers.document_frequency, headers.total)
    if plan.is_empty or headers.total == 0:
        return headers, scorer, {}
    df = headers.document_frequency
    masks: dict[str, dict[str, int]] = {}
    generators = [f for f in _generators(scorer, headers) if df.get(f, 0) > 0]
    for feature in generators:
        for memory_id, field_name in index.read_posting_list(conn, feature):
            entry = masks.setdefault(memory_id, {})
            entry[feature] = entry.get(feature, 0) | FIELD_BITS.get(field_name, 0)
    if not masks:
        return headers, scorer, {}
    ids = list(masks)
    for feature in dict.fromkeys(features):
        if feature in generators or df.get(feature, 0) == 0:
            continue
        if df[feature] <= len(ids):
            found: Iterable[tuple[str, str]] = index.read_posting_list(conn, feature)
        else:
            found = index.probe_postings(conn, feature, ids)
        for memory_id, field_name in found:
            entry = masks.get(memory_id)
            if entry is not None:
                entry[feature] = entry.get(feature, 0) | FIELD_BITS.get(field_name, 0)
    return headers, scorer, masks


def origin_masks(origin: str, headers: Headers, features: Iterable[str]) -> dict[str, int]:
    """Origin-field bits for the query features that this claim's origin identifier carries."""
    offered = set(origin_features(origin))
    return {f: ORIGIN for f in features if f in offered and origin in headers.origins.get(f, ())}


def optimistic(masks: dict[str, int], headers: Headers) -> dict[str, int]:
    """Masks as if every origin-matchable feature matched (a cheap upper bound for the gates)."""
    if not headers.origins:
        return masks
    merged = dict(masks)
    for feature in headers.origins:
        merged[feature] = merged.get(feature, 0) | ORIGIN
    return merged
