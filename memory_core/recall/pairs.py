"""A question two facts answer together gets its second fact (:mod:`.complement` finds it): a
claim answering what the chosen claims left open, about the same thing; or, when no claim
answered enough of the question alone, a pair of such claims. Neither is about another person
than the one the question names (:mod:`.persons`).
"""

from __future__ import annotations

from memory_core.recall import complement, exact, persons
from memory_core.recall.aging import is_dormant
from memory_core.recall.candidates import Retrieval
from memory_core.recall.rank import Candidate, mark_chosen
from memory_core.recall.scoring import MIN_FOCUS_COVERAGE
from memory_core.store.engines.dbapi import DbConn

# When no claim answers enough of the question alone, a claim failing only on coverage may
# answer it together with a complementary claim (see :func:`add_pair`): the gates it may
# have failed, the share of the question it must answer itself, and how many are tried.
ANCHOR_REASONS = frozenset({"focus_coverage", "too_few_matches", "named_attribute_missing"})
MIN_ANCHOR_COVERAGE = 0.25
ANCHORS_TRIED = 8


def add_pair(
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
            scored = exact.named(conn, r, memory_id)
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
        chosen.append(mark_chosen(anchor, now=now, complement=False))
        chosen.append(mark_chosen(known, now=now, complement=True))
        return


def add_complement(
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
        scored = exact.named(conn, r, memory_id)
        if not scored:
            return
        known = scored[0]
        candidates.append(known)
    chosen.append(mark_chosen(known, now=now, complement=True))
