"""What the assistant said: a question asking it is answered by the reply, not the request.

"Which trails did you suggest for hiking with my dog?" shares most of its words with the
user's own request ("Can you suggest a few hiking trails near Boulder that are dog
friendly?"), while the reply that answered it ("Sure: Mount Sanitas Trail (3.1 miles), …")
names the trails and little of the question. Where a question asks what the assistant
recommended, suggested, said or gave (:func:`memory_core.text.requests.asks_reply`) and
recall chose a request made to the assistant (:func:`memory_core.text.requests.is_request`),
the claim stated right after it in the same origin (the reply, in a conversation stored turn
by turn) answers in its place, and the request is dropped (``request``). A request with no
later claim, or whose next claim is another request, stays.
"""

from __future__ import annotations

from memory_core.recall.index import IndexedDoc, read_docs
from memory_core.recall.rank import Candidate
from memory_core.recall.rows import load_claims
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import visible_clause
from memory_core.text.requests import is_request

# Claims of the origin read from the request's date on: the request itself, any stated at the
# same moment, and the one after.
_LOOKED_AT = 8


def answer_with_replies(
    conn: DbConn, chosen: list[Candidate], candidates: list[Candidate], limit: int
) -> tuple[list[Candidate], list[Candidate]]:
    """(chosen, the replies taken) for a question that asks what the assistant said: each
    chosen request is replaced by the claim stated next in its origin, when that claim is no
    request itself, and marked ``request``. A reply recall had judged already (below the
    cutoff, say) is that candidate, taken; any other is a new one, scored as its request."""
    if not chosen:
        return chosen, []
    contents = {m: c.content for m, c in load_claims(conn, [c.doc.memory_id for c in chosen], []).items()}
    requests = [c for c in chosen if is_request(contents.get(c.doc.memory_id, ""))]
    held = {c.doc.memory_id for c in chosen}
    out, taken = list(chosen), []
    for request in requests:
        reply = _next_claim(conn, request)
        if reply is None:
            continue
        request.excluded = "request"
        if reply.memory_id in held:  # the reply is already an answer: the request adds nothing
            out.remove(request)
            continue
        judged = next((c for c in candidates if c.doc.memory_id == reply.memory_id), None)
        answer = judged or Candidate(reply, request.raw, (), (), complete=request.complete, coverage=request.coverage)
        answer.reply_to = request.doc.memory_id
        out[out.index(request)] = answer
        held.add(reply.memory_id)
        taken.append(answer)
    return out[:limit], taken


def _next_claim(conn: DbConn, request: Candidate) -> IndexedDoc | None:
    """The claim stated right after ``request`` in its origin (by date, then id; one this
    person may see), unless it is a request too. Read through ``memories_origin`` (origin,
    updated_at): a seek, however many claims the origin holds."""
    doc = request.doc
    mine, params = visible_clause(conn)
    rows = conn.execute(
        f"SELECT id, updated_at, status FROM memories WHERE origin=? AND updated_at >= ?{mine} "
        f"ORDER BY updated_at, id LIMIT {_LOOKED_AT}",
        (doc.origin, doc.updated_at, *params),
    ).fetchall()
    start = (doc.updated_at, doc.memory_id)
    after = next((r[0] for r in rows if (float(r[1]), str(r[0])) > start and r[2] == "active"), None)
    if after is None:
        return None
    claim = load_claims(conn, [after], []).get(after)
    if claim is None or is_request(claim.content):
        return None
    return read_docs(conn, [after]).get(after)
