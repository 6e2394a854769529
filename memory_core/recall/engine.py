"""One evaluation of a plan: score candidates best-first until the rest provably cannot pass.

Scoring a candidate exactly (gates, origin, length, lifecycle) is the costly step, so the
candidates are taken in order of an upper bound on their relevance, in growing batches.
After each batch, if even the best unscored candidate's bound is below what the relative
cutoff demands of it (or, for a listing, below the rank of the last listed claim), no
unscored candidate could be selected and the evaluation stops: the result is the same as
scoring everything. Only a query so ambiguous that thousands of claims tie on its words
stops early without that proof (:data:`MAX_SCORED`); its diagnostics say so.

After selection, a question two facts answer together gets its second fact: a claim that
answers what the chosen claims left open, about the same thing (:mod:`.complement`), or,
when no claim answered enough of the question alone, a pair of such claims
(:func:`_add_pair`). A question selection found ambiguous (more equally relevant claims
than it can tell apart, see :mod:`.rank`) gets no pair either.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_core.recall import changes, complement, dated, events, expansion, lead, persons, replies
from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.candidates import (
    Retrieval,
    add_postings,
    complete,
    origin_masks,
    plan_features,
    retrieve,
)
from memory_core.recall.index import probe_postings, read_docs, read_headers
from memory_core.recall.proof import Proof
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.query_units import choice_groups, value_pairs
from memory_core.recall.rank import Candidate, rank_score, select
from memory_core.recall.scoring import MIN_FOCUS_COVERAGE, length_factor
from memory_core.store.engines.dbapi import DbConn
from memory_core.text.time_anchor import span

FIRST_BATCH = 48
# Automatic recall scores each distinct indexed content once (:mod:`.expansion`) where the
# store repeats content; off, every candidate claim is scored (the property test compares).
BODY_PATH = True
# Past this many exactly scored candidates the query is too ambiguous for more work to
# change anything that matters (thousands of claims tie on its words): stop, and say so.
MAX_SCORED = 512
# Rejected candidates kept (best first) so diagnostics can say why they lost.
REJECTS_KEPT = 10
# When no claim answers enough of the question alone, a claim failing only on coverage may
# answer it together with a complementary claim (see :func:`_add_pair`): the gates it may
# have failed, the share of the question it must answer itself, and how many are tried.
ANCHOR_REASONS = frozenset({"focus_coverage", "too_few_matches", "named_attribute_missing"})
MIN_ANCHOR_COVERAGE = 0.25
ANCHORS_TRIED = 8


class Outcome(
    NamedTuple(
        "Outcome",
        [
            ("candidates", list[Candidate]),
            ("chosen", list[Candidate]),
            ("indexed", int),
            ("matched", int),
            ("scored", int),
            ("truncated", bool),
            ("lead", lead.Lead | None),
        ],
    )
):
    """Scored candidates (passing ones and a few rejects), the chosen ones, counts, and the
    lexical lead when nothing passed (:mod:`.lead`)."""

    __slots__ = ()


def _score(conn: DbConn, r: Retrieval, batch: list[str], rejected: list[tuple[float, str, str]]) -> list[Candidate]:
    """Exact evaluation of a batch; cheap rejections are noted in ``rejected``."""
    survivors = []
    for memory_id in batch:
        # Origins are not known yet: assume the best, reject only what fails even so.
        raw, reason = r.judge_optimistic(memory_id)
        if reason is None:
            survivors.append(memory_id)
        else:
            rejected.append((raw, memory_id, reason))
    return _exact(conn, r, survivors)


def _exact(conn: DbConn, r: Retrieval, ids: list[str]) -> list[Candidate]:
    features = list(r.scorer.weights)
    docs = read_docs(conn, ids)
    by_origin: dict[str, dict[str, int]] = {}
    scored = []
    judge = r.judge
    for memory_id in ids:
        doc = docs.get(memory_id)
        if doc is None:
            continue
        found = r.masks[memory_id]
        origin_bits = origin_masks(doc.origin, r.headers, features, by_origin)
        if origin_bits:
            found = dict(found)
            for feature, bit in origin_bits.items():
                found[feature] = found.get(feature, 0) | bit
        e = judge(found)
        scored.append(
            Candidate(
                doc,
                length_factor(doc.feature_count) * e.raw,
                e.matched,
                e.context_matched,
                e.reason,
                e.alternatives,
                e.complete,
                coverage=e.coverage,
                firm=e.firm,
            )
        )
    return scored


def _force(conn: DbConn, r: Retrieval, memory_id: str) -> list[Candidate]:
    """Score one named claim exactly, whether or not the postings offered it as a candidate."""
    for feature in r.scorer.weights:
        if r.headers.document_frequency.get(feature, 0) > 0:
            add_postings(r.masks, probe_postings(conn, feature, [memory_id]), feature, create=True)
    r.masks.setdefault(memory_id, {})
    return _exact(conn, r, [memory_id])


def evaluate_plan(
    conn: DbConn,
    plan: QueryPlan,
    *,
    now: float,
    limit: int,
    include_dormant: bool,
    narrow: bool,
    force: str | None = None,
) -> Outcome:
    """Retrieve, score (best first, only as far as needed) and select for one plan.

    ``narrow`` applies the relative cutoff and facet redundancy (automatic recall); a
    listing (``search``) skips both. ``force`` names a claim to score and judge in any case
    (``explain --claim``): it cannot change what is chosen, since a claim that was not
    scored provably could not have been selected. A question joining two events has the
    best claim of each chosen first (:mod:`.events`).
    """
    if plan.window_only:
        return _dated_only(conn, plan, now=now, limit=limit, force=force)
    outcome = _evaluate(conn, plan, now=now, limit=limit, include_dormant=include_dormant, narrow=narrow, force=force)
    if narrow and plan.events:
        chosen, candidates = events.answer_events(
            plan,
            outcome.chosen,
            outcome.candidates,
            lambda event: (
                _evaluate(conn, event, now=now, limit=limit, include_dormant=include_dormant, narrow=True).chosen
            ),
            limit,
        )
        outcome = outcome._replace(chosen=chosen, candidates=candidates)
    if narrow and plan.window and plan.window[0] != "recent":
        chosen, instead = dated.prefer(outcome.chosen, outcome.candidates, span(plan.window, now), limit)
        for c in instead:
            _chosen(c, now=now, complement=False)
        outcome = outcome._replace(chosen=chosen)
    if narrow and plan.asks_current:
        chosen, taken = changes.what_holds_now(conn, plan, outcome.chosen, outcome.candidates, limit)
        outcome = _taken(outcome, chosen, taken, now=now)
    if narrow and plan.asks_reply and outcome.chosen:
        chosen, taken = replies.answer_with_replies(conn, outcome.chosen, outcome.candidates, limit)
        outcome = _taken(outcome, chosen, taken, now=now)
    return outcome


def _taken(outcome: Outcome, chosen: list[Candidate], taken: list[Candidate], *, now: float) -> Outcome:
    """``outcome`` with ``chosen``, where ``taken`` were added by a step after selection (each
    marked selected, and a candidate too if recall had not judged it)."""
    for c in taken:
        _chosen(c, now=now, complement=False)
    judged = {id(c) for c in outcome.candidates}
    return outcome._replace(chosen=chosen, candidates=[*outcome.candidates, *(c for c in taken if id(c) not in judged)])


def _dated_only(conn: DbConn, plan: QueryPlan, *, now: float, limit: int, force: str | None) -> Outcome:
    """A question asking only what happened at a time: the claims dated within it (:mod:`.dated`)."""
    bounds = span(plan.window, now)
    target = now - plan.window[1] if plan.window[0] == "ago" else None
    docs, matched = dated.read_dated(conn, bounds, limit, target)
    chosen = [_chosen(Candidate(doc, 1.0, (), ()), now=now, complement=False) for doc in docs]
    candidates = list(chosen)
    if force is not None and all(c.doc.memory_id != force for c in chosen):
        doc = read_docs(conn, [force]).get(force)
        if doc is not None:  # judged only because explain named it: aged as the others, not chosen
            forced = _chosen(Candidate(doc, 1.0, (), ()), now=now, complement=False)
            forced.excluded = "over_limit" if dated.within(doc, bounds) else "outside_window"
            candidates.append(forced)
    return Outcome(candidates, chosen, read_headers(conn, ()).total, matched, len(docs), False, None)


def _evaluate(
    conn: DbConn,
    plan: QueryPlan,
    *,
    now: float,
    limit: int,
    include_dormant: bool,
    narrow: bool,
    force: str | None = None,
) -> Outcome:
    headers = read_headers(conn, plan_features(plan))
    if narrow and BODY_PATH:
        fast = expansion.evaluate(
            conn,
            plan,
            headers,
            now=now,
            limit=limit,
            include_dormant=include_dormant,
            first_batch=FIRST_BATCH,
            max_scored=MAX_SCORED,
            rejects_kept=REJECTS_KEPT,
            anchors_tried=ANCHORS_TRIED,
            anchor_reasons=ANCHOR_REASONS,
            force=force,
        )
        if fast is not None:
            candidates, chosen = fast.candidates, fast.chosen
            if not chosen and not any(c.excluded == "ambiguous" for c in candidates):
                _add_pair(
                    conn, fast.retrieval, candidates, fast.anchors, chosen, now=now, include_dormant=include_dormant
                )
            elif chosen and len(chosen) < limit:
                _add_complement(conn, fast.retrieval, candidates, chosen, now=now, include_dormant=include_dormant)
            revealed = frozenset({fast.revealed}) if fast.revealed else frozenset()
            found = _add_lead(candidates, chosen, revealed, now=now, include_dormant=include_dormant)
            total = fast.retrieval.headers.total
            return Outcome(candidates, chosen, total, fast.matched, fast.scored, fast.truncated, found)
    r = retrieve(conn, plan, headers=headers)
    grouped = bool(choice_groups(plan.focus))
    proof = Proof(now=now, limit=limit, include_dormant=include_dormant, narrow=narrow, grouped=grouped)
    passing: list[Candidate] = []
    failed: list[Candidate] = []
    rejected: list[tuple[float, str, str]] = []
    done, size = 0, FIRST_BATCH
    truncated = False
    while done < len(r.order):
        if done >= MAX_SCORED:
            truncated = True
            break
        batch = r.order[done : min(done + size, MAX_SCORED)]
        complete(conn, r, batch)
        passed: list[Candidate] = []
        for c in _score(conn, r, batch, rejected):
            (passed if c.excluded is None else failed).append(c)
        passing += passed
        proof.add(passed)
        done += len(batch)
        size *= 4
        if done < len(r.order) and proof.proven(r.upper[r.order[done]] + r.slack):
            break
    failed.sort(key=lambda c: (-c.raw, c.doc.memory_id))
    rejected.sort(key=lambda x: (-x[0], x[1]))
    room = max(0, REJECTS_KEPT - len(failed))
    extra = _exact(conn, r, [memory_id for _, memory_id, _ in rejected[:room]])
    candidates = passing + failed[:REJECTS_KEPT] + extra
    matched = len(r.masks)
    skip: frozenset[str] = frozenset()
    if force is not None and all(c.doc.memory_id != force for c in candidates):
        skip = frozenset({force})  # judged only because explain named it: recall never ranks it
        known = next((c for c in failed if c.doc.memory_id == force), None)
        # Not offered by a list read only as far as its most recent claims: never a candidate.
        unread = known is None and bool(r.capped) and force not in r.masks
        forced = [known] if known is not None else _force(conn, r, force)
        for c in forced:
            if c.excluded is None and unread:
                c.excluded = "not_read"
            elif c.excluded is None and truncated:
                c.excluded = "not_scored"  # past MAX_SCORED: never judged by the real recall
        candidates += forced
    if narrow:
        persons.drop_other_people(conn, r.scorer.focus, candidates)
        persons.drop_owners_only(conn, r.scorer.focus, candidates)
    chosen = select(
        candidates,
        now=now,
        limit=limit,
        include_dormant=include_dormant,
        relative_cutoff=narrow,
        facet_redundancy=narrow,
        supersede={t.feature: t.unit for t in plan.focus} if narrow and plan.asks_current else None,
        values=value_pairs(plan.focus) if narrow else (),
    )
    if narrow and not chosen and not any(c.excluded == "ambiguous" for c in candidates):
        anchors = [c for c in failed if c.excluded in ANCHOR_REASONS]
        anchors += _exact(conn, r, [m for _, m, reason in rejected[:ANCHORS_TRIED] if reason in ANCHOR_REASONS])
        _add_pair(conn, r, candidates, anchors, chosen, now=now, include_dormant=include_dormant)
    elif narrow and chosen and len(chosen) < limit:
        _add_complement(conn, r, candidates, chosen, now=now, include_dormant=include_dormant)
    found = _add_lead(candidates, chosen, skip, now=now, include_dormant=include_dormant) if narrow else None
    return Outcome(candidates, chosen, r.headers.total, matched, done, truncated, found)


def _add_lead(
    candidates: list[Candidate], chosen: list[Candidate], skip: frozenset[str], *, now: float, include_dormant: bool
) -> lead.Lead | None:
    """When nothing was chosen: the lexical lead (:mod:`.lead`), chosen if it leads by enough.
    ``skip``: a claim scored only because ``explain --claim`` named it, which the ranking of
    the recall being explained never held."""
    if chosen:
        return None
    found = lead.find([c for c in candidates if c.doc.memory_id not in skip], now=now, include_dormant=include_dormant)
    if found is not None and found.taken:
        chosen.append(_chosen(found.candidate, now=now, complement=False))
    return found


def _add_pair(
    conn: DbConn,
    r: Retrieval,
    candidates: list[Candidate],
    anchors: list[Candidate],
    chosen: list[Candidate],
    *,
    now: float,
    include_dormant: bool,
) -> None:
    """When no claim answers enough of the question alone: the best claim answering one part
    of it, with the claim answering the rest about the same thing (see :mod:`.complement`).

    "The one whose job is bank manager: what is the sum of his phone number's last digits?"
    splits its weight between the two facts, so neither claim reaches the coverage gate.
    A claim that failed only on coverage (or on matching too few words) and answers at least
    :data:`MIN_ANCHOR_COVERAGE` of the question is an anchor; if a complementary claim about
    the same thing answers the open part and the two together reach the coverage gate, both
    are chosen. At most :data:`ANCHORS_TRIED` anchors are tried, best first.
    """
    scorer = r.scorer
    awake = [
        c
        for c in anchors
        if c.coverage >= MIN_ANCHOR_COVERAGE
        and (include_dormant or not is_dormant(c.doc.kind, c.doc.clock_at, now, pinned=bool(c.doc.pinned)))
    ]
    awake.sort(key=lambda c: (-c.raw, c.doc.memory_id))
    for anchor in awake[:ANCHORS_TRIED]:
        memory_id = complement.find(conn, r, [anchor], now=now, include_dormant=include_dormant)
        if memory_id is None or persons.about_other_people(conn, r.scorer.focus, [anchor.doc.memory_id, memory_id]):
            continue
        known = next((c for c in candidates if c.doc.memory_id == memory_id), None)
        if known is None:
            scored = _force(conn, r, memory_id)
            if not scored:
                continue
            known = scored[0]
        if anchor.excluded == "named_attribute_missing" and not complement.identifies(conn, r, anchor, memory_id):
            continue
        both = {f: 1 for f in (*anchor.matched, *known.matched)}
        # Together they must answer as one claim would: enough of the question, and about
        # the subject it names (a port of another subject is no answer about this one).
        if scorer.coverage(both) < MIN_FOCUS_COVERAGE or not scorer.names_answered(both):
            continue
        # A claim already among the candidates (``explain --claim`` scored it on its own) is
        # that candidate: the one reported must be the one chosen.
        anchor = next((c for c in candidates if c.doc.memory_id == anchor.doc.memory_id), anchor)
        if anchor not in candidates:
            candidates.append(anchor)
        if known not in candidates:
            candidates.append(known)
        chosen.append(_chosen(anchor, now=now, complement=False))
        chosen.append(_chosen(known, now=now, complement=True))
        return


def _add_complement(
    conn: DbConn,
    r: Retrieval,
    candidates: list[Candidate],
    chosen: list[Candidate],
    *,
    now: float,
    include_dormant: bool,
) -> None:
    """Add the claim answering what ``chosen`` left open, if there is one (see :mod:`.complement`)."""
    memory_id = complement.find(conn, r, chosen, now=now, include_dormant=include_dormant)
    if memory_id is None or persons.about_other_people(conn, r.scorer.focus, [memory_id]):
        return
    known = next((c for c in candidates if c.doc.memory_id == memory_id), None)
    if known is None:
        scored = _force(conn, r, memory_id)
        if not scored:
            return
        known = scored[0]
        candidates.append(known)
    chosen.append(_chosen(known, now=now, complement=True))


def _chosen(c: Candidate, *, now: float, complement: bool) -> Candidate:
    """``c`` marked as selected, aged and ranked (selection did not choose it itself)."""
    doc = c.doc
    c.excluded = None
    c.complement = complement
    c.freshness = freshness(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
    c.dormant = is_dormant(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned))
    c.rank = rank_score(c.raw, c.freshness, doc.priority, doc.utility, doc.accuracy)
    return c
