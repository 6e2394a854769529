"""Recall: the read-only lookups the hooks and commands call.

One evaluation does everything: plan the query, read the postings of its features, apply
the relevance gates, age and rank what passed, load only the chosen claims, and render the
digest and the diagnostics. Nothing here writes ``memory.db``; callers open it with
:meth:`memory_core.store.engines.database.Store.open_readonly`. No model is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_core.clock import iso
from memory_core.errors import UsageError
from memory_core.privacy.private_text import strip_private
from memory_core.privacy.sanitize import redact_secrets, strip_controls, valid_text
from memory_core.recall.diagnostics import (
    build_diagnostics,
    claim_verdict,
    read_last_diagnostics,
    record_failed_recall,
    write_last_diagnostics,
)
from memory_core.recall.digest import MAX_CLAIMS, DigestRow, excerpt, render_digest
from memory_core.recall.engine import evaluate_plan
from memory_core.recall.left_out import StaleCheck, leave_out
from memory_core.recall.query_plan import (
    MAX_TEXT_BYTES,
    MAX_TEXTS,
    QueryPlan,
    build_plan,
    clip_text,
    conversation_slots,
)
from memory_core.recall.rank import accuracy_factor, utility_factor
from memory_core.recall.results import RecalledClaim, RecallResult
from memory_core.recall.rows import load_claims
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.index_version import INDEX_VERSION, index_version

__all__ = [
    "RecallResult",
    "RecalledClaim",
    "explain_claim",
    "open_recall_store",
    "preview",
    "read_last_diagnostics",
    "recall",
    "record_failed_recall",
    "search",
    "turn_recall",
    "validate_query",
    "write_last_diagnostics",
]

SEARCH_LIMIT = 10
MAX_QUERY_CHARS = 512


def validate_query(query: object) -> str:
    """An explicit query: text of 1 to 512 characters, or a :class:`UsageError` saying so."""
    if not isinstance(query, str) or not query.strip():
        raise UsageError('give a query of 1-512 characters, e.g. `memevo recall "sqlite port"`')
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"the query has {len(query)} characters; shorten it to at most {MAX_QUERY_CHARS}")
    return query


def open_recall_store(home: Path) -> Store | None:
    """The memory database opened read-only, or ``None`` when none exists yet (nothing to recall)."""
    return Store.open_existing_readonly(home)


# Each text is cut to this many bytes (head and tail) before redaction: four times what the
# plan reads (MAX_TEXT_BYTES), so a secret cut at this bound lies outside what is read.
SCAN_TEXT_BYTES = 4 * MAX_TEXT_BYTES


def _clean(texts: Sequence[str]) -> list[str]:
    # Stored text is redacted on capture, so a secret in a query could never match; keeping
    # it out of the plan also keeps it out of the diagnostics file. Valid UTF-8 first, for
    # callers other than the hook (whose input is made valid at its boundary). Text marked
    # private is never matched, logged nor shown by explain (memory_core.privacy.private_text).
    # Private parts go first, before clipping could part an opening tag from its text.
    return [redact_secrets(strip_controls(clip_text(strip_private(valid_text(t)), SCAN_TEXT_BYTES))) for t in texts]


def _run(
    conn: DbConn,
    plan: QueryPlan,
    *,
    now: float,
    limit: int,
    include_dormant: bool,
    trigger: str,
    narrow: bool,
    with_digest: bool,
    explain_id: str | None = None,
    exclude: frozenset[str] = frozenset(),
    stale: StaleCheck | None = None,
) -> RecallResult:
    notes: list[str] = []
    built_with = index_version(conn)
    if built_with not in (None, INDEX_VERSION):
        notes.append(
            f"the recall index has version {built_with}, this build reads {INDEX_VERSION}; "
            "matches may be missed until it is rebuilt (opening the store rebuilds it, with the "
            "administrator's login in a team: `memevo status`)"
        )
    outcome = evaluate_plan(
        conn, plan, now=now, limit=limit, include_dormant=include_dormant, narrow=narrow, force=explain_id
    )
    chosen = outcome.chosen
    if outcome.truncated:
        notes.append(f"ambiguous query: scored the best {outcome.scored} of {outcome.matched} candidates")
    loaded = load_claims(conn, [c.doc.memory_id for c in chosen], notes)
    chosen = [c for c in chosen if c.doc.memory_id in loaded]
    left_out: dict[str, Any] = {}
    if exclude or stale is not None:
        chosen = leave_out(chosen, loaded, exclude, stale, left_out, notes)
    claims: list[RecalledClaim] = []
    rows: list[DigestRow] = []
    for c in chosen:
        claim = loaded[c.doc.memory_id]
        source_id = claim.shown_source_id
        claims.append(
            RecalledClaim(
                claim.memory_id,
                source_id,
                claim.kind,
                claim.status,
                claim.origin,
                claim.evidence_label,
                claim.updated_at,
                claim.pinned,
                c.dormant,
                c.raw,
                c.rank,
                c.freshness,
                c.doc.priority,
                utility_factor(c.doc.utility),
                accuracy_factor(c.doc.accuracy),
                c.matched,
                excerpt(claim.content, c.matched),
            )
        )
        rows.append(
            DigestRow(
                claim.memory_id,
                claim.kind,
                claim.status,
                claim.origin,
                source_id,
                (iso(claim.updated_at) or "")[:10],
                claim.evidence_label,
                c.freshness,
                c.dormant,
                claim.accuracy,
                claim.content,
                c.matched,
            )
        )
    digest, shown = render_digest(rows) if with_digest else ("", 0)
    diagnostics = build_diagnostics(
        plan=plan,
        trigger=trigger,
        now=now,
        indexed=outcome.indexed,
        matched=outcome.matched,
        scored=outcome.scored,
        candidates=outcome.candidates,
        chosen=chosen,
        digest_claims=shown,
        digest_bytes=len(digest.encode("utf-8")),
        notes=notes,
    )
    diagnostics.update(left_out)
    if outcome.lead is not None:
        diagnostics["lead"] = outcome.lead.as_dict()
    if explain_id is not None:
        diagnostics["claim"] = claim_verdict(conn, explain_id, outcome.candidates, chosen, plan, outcome.lead, now)
        for item in left_out.get("stale", []):
            if item["id"] == explain_id:
                missing = ", ".join(item["missing"])
                diagnostics["claim"].update(
                    selected=False, reason="stale", detail=f"stale: {missing} no longer exists in the checkout"
                )
    return RecallResult(claims, digest, diagnostics, plan)


def recall(
    conn: DbConn,
    query: str,
    *,
    context: Sequence[str] = (),
    now: float,
    include_dormant: bool = False,
    limit: int = MAX_CLAIMS,
) -> RecallResult:
    """Recall for ``query``; ``context`` holds earlier user texts of the conversation, oldest first.

    Dormant claims are only returned when ``include_dormant`` asks for them. The digest
    holds at most three claims whatever ``limit`` says.
    """
    texts = _clean([*conversation_slots(context)[-(MAX_TEXTS - 1) :], query])
    return _run(
        conn,
        build_plan(texts),
        now=now,
        limit=limit,
        include_dormant=include_dormant,
        trigger="query",
        narrow=True,
        with_digest=True,
    )


def turn_recall(
    conn: DbConn,
    user_texts: list[str],
    *,
    now: float,
    session_is_fresh: bool,
    exclude: frozenset[str] = frozenset(),
    stale: StaleCheck | None = None,
) -> RecallResult:
    """Automatic recall for a user turn: the last text is the question, earlier ones its context.

    In a fresh session there is no earlier subject to inherit, so a bare "continue"
    recalls nothing. Claims in ``exclude`` (the session's standing digest gave them) and
    claims ``stale`` finds outgrown by the checkout are left out.
    """
    texts = conversation_slots(user_texts)
    if session_is_fresh:
        texts = texts[-1:]
    return _run(
        conn,
        build_plan(_clean(texts)),
        now=now,
        limit=MAX_CLAIMS,
        include_dormant=False,
        trigger="turn",
        narrow=True,
        with_digest=True,
        exclude=exclude,
        stale=stale,
    )


def search(
    conn: DbConn, query: str, *, now: float, limit: int = SEARCH_LIMIT, include_dormant: bool = True
) -> RecallResult:
    """An explicit listing of up to ``limit`` matches: the same gates, no relative cutoff,
    no facet thinning, dormant claims included (and marked)."""
    return _run(
        conn,
        build_plan(_clean([query])),
        now=now,
        limit=limit,
        include_dormant=include_dormant,
        trigger="search",
        narrow=False,
        with_digest=False,
    )


def preview(
    conn: DbConn | None, query: str, *, now: float, claim: str | None = None, stale: StaleCheck | None = None
) -> dict[str, Any]:
    """Diagnostics for an explicit query, without any conversation to inherit from.

    ``conn`` may be ``None`` when no database exists yet: the plan is still shown. With
    ``claim`` (a memory id), the diagnostics also say what became of that claim: selected,
    or the gate or selection step that dropped it (``claim``). ``stale`` leaves out claims the
    checkout has outgrown, as the turn's recall does.
    """
    plan = build_plan(_clean([query]))
    if conn is None:
        data = build_diagnostics(
            plan=plan,
            trigger="preview",
            now=now,
            indexed=0,
            matched=0,
            scored=0,
            candidates=[],
            chosen=[],
            digest_claims=0,
            digest_bytes=0,
        )
        if claim is not None:
            data["claim"] = {"id": claim, "selected": False, "reason": "not_found"}
        return data
    return _run(
        conn,
        plan,
        now=now,
        limit=MAX_CLAIMS,
        include_dormant=False,
        trigger="preview",
        narrow=True,
        with_digest=True,
        explain_id=claim,
        stale=stale,
    ).diagnostics


def explain_claim(
    conn: DbConn,
    query: str,
    memory_id: str,
    *,
    context: Sequence[str] = (),
    now: float,
    include_dormant: bool = False,
) -> dict[str, Any]:
    """What recall for ``query`` (after ``context``, as :func:`recall`) did with one claim.

    A dict with the claim's ``id``, whether it was ``selected``, and otherwise the
    ``reason`` it was dropped (a relevance gate such as ``focus_coverage``, a selection step
    such as ``below_relative_cutoff``, or ``not_found`` / ``not_recallable``) with a
    ``detail`` in words, its raw score and matched features.
    """
    texts = _clean([*conversation_slots(context)[-(MAX_TEXTS - 1) :], query])
    result = _run(
        conn,
        build_plan(texts),
        now=now,
        limit=MAX_CLAIMS,
        include_dormant=include_dormant,
        trigger="query",
        narrow=True,
        with_digest=False,
        explain_id=memory_id,
    )
    verdict: dict[str, Any] = result.diagnostics["claim"]
    return verdict
