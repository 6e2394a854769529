"""A later change of a chosen fact, for a question asking what holds now: "Actually let's drop
the cache TTL to 10 seconds" after "Stock levels are cached in Redis for 30 seconds".

A person changes their mind, and says so in fewer of the question's words than the first
statement held ("How long are stock levels cached now?" shares three words with the first
and one with the change), so the change rarely passes the gates on its own. Where the
question asks what holds now and recall chose a claim, the newest later claim of the same
origin that states a change (:func:`memory_core.text.changes.states_change`) and holds a word
of the question the chosen claim matched is added after it, while there is room: the answer
holds what was said first and what holds now. A claim about another person than the one the
question names is never taken (:mod:`.persons`).

And where nothing was chosen because too many claims tie on a what/which question's words
("What ORM is currently used in the ecommerce-api?" over six claims about its ORM), the
newest of them stating a change answers, if it is newer than every other change among them.

The later claims are read from the posting lists of the chosen claim's matched words, newest
first (their ``recency`` index), whether or not recall scored them: ``explain --claim`` scores
the claim it is asked about, and must not change what is added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_core.recall import persons
from memory_core.recall.index import read_docs
from memory_core.recall.query_plan import QueryPlan
from memory_core.recall.rank import Candidate
from memory_core.recall.rows import load_claims
from memory_core.store.engines.dbapi import DbConn
from memory_core.text.changes import states_change

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.text.query_features import Term

# What a change taken among tied claims updates (:func:`newest_among_tied`).
TIED = "tied"
# The newest claims holding one of the chosen claim's words read for each chosen claim: a
# change is said soon after, and among the latest statements of the thing.
LOOKED_AT = 32


def what_holds_now(
    conn: DbConn, plan: QueryPlan, chosen: list[Candidate], candidates: list[Candidate], limit: int
) -> tuple[list[Candidate], list[Candidate]]:
    """(chosen, the changes taken) for a question asking what holds now: each chosen claim
    followed by its later change; or, where nothing was chosen because too many claims tie on
    a what/which question's words, the newest change among them."""
    if not chosen:
        newest = newest_among_tied(conn, candidates) if plan.kind is not None else None
        return ([newest], [newest]) if newest is not None else (chosen, [])
    taken = add_changes(conn, chosen, candidates, plan.focus, limit) if len(chosen) < limit else []
    return [*chosen, *taken], taken


def add_changes(
    conn: DbConn, chosen: list[Candidate], candidates: list[Candidate], focus: Iterable[Term], limit: int
) -> list[Candidate]:
    """The newest later change of each chosen claim, in the order of the claims they change
    (while fewer than ``limit`` claims are chosen); each marked with the claim it updates."""
    focus = tuple(focus)
    held = {c.doc.memory_id for c in chosen}
    judged = {c.doc.memory_id: c for c in candidates}
    taken: list[Candidate] = []
    for c in list(chosen):
        if len(chosen) + len(taken) >= limit:
            break
        found = _newest_change(conn, c, held, focus)
        if found is None:
            continue
        doc = read_docs(conn, [found]).get(found)
        if doc is None:
            continue
        known = judged.get(found)
        change = known or Candidate(doc, c.raw, (), (), coverage=c.coverage)
        change.updates = c.doc.memory_id
        held.add(found)
        taken.append(change)
    return taken


def _newest_change(conn: DbConn, claim: Candidate, held: set[str], focus: Sequence[Term]) -> str | None:
    """The newest claim of ``claim``'s origin, later than it, holding one of its matched words
    and stating a change (not one already chosen, nor about another person)."""
    words = sorted(f for f in claim.matched if not f.startswith("="))
    if not words:
        return None
    marks = ",".join("?" * len(words))
    rows = conn.execute(
        f"SELECT DISTINCT memory_id, recency FROM postings WHERE feature IN ({marks}) "
        "AND field IN ('body', 'alias') AND recency > ? ORDER BY recency DESC LIMIT ?",
        (*words, claim.doc.updated_at, LOOKED_AT),
    ).fetchall()
    later = [str(r[0]) for r in rows if str(r[0]) not in held]
    if not later:
        return None
    docs = read_docs(conn, later)
    mine = [m for m in later if (d := docs.get(m)) is not None and d.origin == claim.doc.origin]
    if not mine:
        return None
    contents = {m: c.content for m, c in load_claims(conn, mine, []).items()}
    for memory_id in mine:  # newest first
        if states_change(contents.get(memory_id, "")) and not persons.about_other_people(
            conn,
            focus,
            [memory_id],
        ):
            return memory_id
    return None


def newest_among_tied(conn: DbConn, candidates: list[Candidate]) -> Candidate | None:
    """Of the claims tied too many to tell apart (``ambiguous``), the newest stating a change:
    for a question asking what holds now, what was last decided ("What ORM is currently used?"
    over many claims about the ORM, "Got it — switching to Tortoise ORM + Aerich" the newest
    change among them)."""
    tied = [c for c in candidates if c.excluded == "ambiguous"]
    if not tied:
        return None
    contents = {m: claim.content for m, claim in load_claims(conn, [c.doc.memory_id for c in tied], []).items()}
    changes = sorted(
        (c for c in tied if states_change(contents.get(c.doc.memory_id, ""))), key=lambda c: c.doc.clock_at
    )
    # (the newest only where it is newer than every other change: of two told at once, neither
    # is what was last decided)
    if not changes or (len(changes) > 1 and changes[-2].doc.clock_at >= changes[-1].doc.clock_at):
        return None
    changes[-1].updates = TIED
    return changes[-1]
