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
(:mod:`.pairs`). A question selection found ambiguous (more equally relevant claims
than it can tell apart, see :mod:`.rank`) gets no pair either.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_core.recall import changes, dated, events, exact, expansion, lead, pairs, persons, replies
from memory_core.recall.candidates import (
    Retrieval,
    complete,
    plan_features,
    retrieve,
)
from memory_core.recall.index import read_docs, read_headers
from memory_core.recall.pairs import ANCHOR_REASONS, ANCHORS_TRIED
from memory_core.recall.proof import Proof
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.query_units import choice_groups, value_pairs
from memory_core.recall.rank import Candidate, mark_chosen, select
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
    return exact.score(conn, r, survivors)


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
            mark_chosen(c, now=now, complement=False)
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
        mark_chosen(c, now=now, complement=False)
    judged = {id(c) for c in outcome.candidates}
    return outcome._replace(chosen=chosen, candidates=[*outcome.candidates, *(c for c in taken if id(c) not in judged)])


def _dated_only(conn: DbConn, plan: QueryPlan, *, now: float, limit: int, force: str | None) -> Outcome:
    """A question asking only what happened at a time: the claims dated within it (:mod:`.dated`)."""
    bounds = span(plan.window, now)
    target = now - plan.window[1] if plan.window[0] == "ago" else None
    docs, matched = dated.read_dated(conn, bounds, limit, target)
    chosen = [mark_chosen(Candidate(doc, 1.0, (), ()), now=now, complement=False) for doc in docs]
    candidates = list(chosen)
    if force is not None and all(c.doc.memory_id != force for c in chosen):
        doc = read_docs(conn, [force]).get(force)
        if doc is not None:  # judged only because explain named it: aged as the others, not chosen
            forced = mark_chosen(Candidate(doc, 1.0, (), ()), now=now, complement=False)
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
                pairs.add_pair(
                    conn, fast.retrieval, candidates, fast.anchors, chosen, now=now, include_dormant=include_dormant
                )
            elif chosen and len(chosen) < limit:
                pairs.add_complement(conn, fast.retrieval, candidates, chosen, now=now, include_dormant=include_dormant)
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
    extra = exact.score(conn, r, [memory_id for _, memory_id, _ in rejected[:room]])
    candidates = passing + failed[:REJECTS_KEPT] + extra
    matched = len(r.masks)
    skip: frozenset[str] = frozenset()
    if force is not None and all(c.doc.memory_id != force for c in candidates):
        skip = frozenset({force})  # judged only because explain named it: recall never ranks it
        known = next((c for c in failed if c.doc.memory_id == force), None)
        # Not offered by a list read only as far as its most recent claims: never a candidate.
        unread = known is None and bool(r.capped) and force not in r.masks
        forced = [known] if known is not None else exact.named(conn, r, force)
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
        anchors += exact.score(conn, r, [m for _, m, reason in rejected[:ANCHORS_TRIED] if reason in ANCHOR_REASONS])
        pairs.add_pair(conn, r, candidates, anchors, chosen, now=now, include_dormant=include_dormant)
    elif narrow and chosen and len(chosen) < limit:
        pairs.add_complement(conn, r, candidates, chosen, now=now, include_dormant=include_dormant)
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
        chosen.append(mark_chosen(found.candidate, now=now, complement=False))
    return found
