"""Two events a question joins: each answered on its own.

A question of order or of time between two things ("which came first, getting my laptop or
going to the dentist?", "how many days passed between the audit and the migration?",
"先买的电脑还是先去看的牙医？") asks about two events, each stated in a claim of its own on its
own day. Read as one question, neither claim answers enough of it: the laptop's claim says
nothing of the dentist. So each event (:func:`memory_core.text.grammar.two_events`) is asked
as a question of its own, through every gate, and the best claim each finds is chosen,
before what the whole question chose (at most ``limit`` in all). An event nothing answers
adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from memory_core.recall.query_plan import QueryPlan, build_plan
from memory_core.recall.rank import Candidate


def answer_events(
    plan: QueryPlan,
    chosen: list[Candidate],
    candidates: list[Candidate],
    evaluate: Callable[[QueryPlan], list[Candidate]],
    limit: int,
) -> tuple[list[Candidate], list[Candidate]]:
    """``chosen`` and ``candidates`` with the best claim of each of ``plan``'s two events
    first, if it joins two (``evaluate`` gives what a plan chooses)."""
    tops: list[Candidate] = []
    for text in plan.events if len(plan.events) == 2 else ():
        event = build_plan([text])
        found = [] if event.is_empty else evaluate(event)
        if found and all(t.doc.memory_id != found[0].doc.memory_id for t in tops):
            found[0].event = text
            tops.append(found[0])
    if not tops:
        return chosen, candidates
    ids = {t.doc.memory_id for t in tops}
    return (
        [*tops, *(c for c in chosen if c.doc.memory_id not in ids)][:limit],
        [*tops, *(c for c in candidates if c.doc.memory_id not in ids)],
    )
