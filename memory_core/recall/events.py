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
from memory_core.text.vocabulary import ANAPHORA


def answer_events(
    plan: QueryPlan,
    chosen: list[Candidate],
    candidates: list[Candidate],
    evaluate: Callable[[QueryPlan], list[Candidate]],
    limit: int,
) -> tuple[list[Candidate], list[Candidate]]:
    """``chosen`` and ``candidates`` with the best claim of each of ``plan``'s two events
    first, if it joins two (``evaluate`` gives what a plan chooses)."""
    answers: list[tuple[str, list[Candidate]]] = []
    for text in plan.events if len(plan.events) == 2 else ():
        # An event told by a pronoun ("did we ship *it* before or after the outage?") means
        # the conversation's subject: asked alone, it would be about nothing in particular.
        event = build_plan([text]) if ANAPHORA.search(text) is None else None
        if event is not None and not event.is_empty:
            answers.append((text, evaluate(event)))
    tops = _one_each(answers)
    if not tops:
        return chosen, candidates
    ids = {t.doc.memory_id for t in tops}
    merged = [*tops, *(c for c in chosen if c.doc.memory_id not in ids)]
    for displaced in merged[limit:]:
        displaced.excluded = "over_limit"
    return merged[:limit], [*tops, *(c for c in candidates if c.doc.memory_id not in ids)]


def _one_each(answers: list[tuple[str, list[Candidate]]]) -> list[Candidate]:
    """The best claim of each event, distinct, in the question's order: a claim best for both
    ("we added rate limiting after the outage") answers the event with no other claim, and
    the other event gets its next one (or, with none, the shared claim alone answers)."""
    best = {text: chosen[:1] for text, chosen in answers if chosen}
    if len(best) == 2:
        (a, a_chosen), (b, b_chosen) = answers
        if a_chosen[0].doc.memory_id == b_chosen[0].doc.memory_id:
            if len(a_chosen) > 1:
                best[a] = a_chosen[1:2]
            elif len(b_chosen) > 1:
                best[b] = b_chosen[1:2]
            else:
                del best[b]
    tops = []
    for text, (top,) in best.items():
        top.event = text
        tops.append(top)
    return tops
