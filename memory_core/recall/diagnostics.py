"""Bounded diagnostics of one recall, and the small private file holding the last automatic one.

Diagnostics name features, ids, scores and reasons, never a claim's body. They are capped
at :data:`MAX_DIAGNOSTIC_BYTES` of JSON by dropping the least interesting parts first.
The last automatic recall is kept in ``last-recall.json`` in the state dir (0600), outside
``memory.db``: it is a debugging aid, never learning input.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_core.recall.dated import within
from memory_core.recall.lead import LEAD_MIN_COVERAGE, LEAD_RATIO, Lead
from memory_core.recall.query_plan import QueryPlan, build_plan
from memory_core.recall.query_units import value_groups
from memory_core.recall.rank import Candidate, accuracy_factor, evidence_weight, utility_factor
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import visible_clause
from memory_core.text.time_anchor import describe, span
from memory_core.text.value_classes import is_value_class

MAX_DIAGNOSTIC_BYTES = 8000
MAX_PLAN_FEATURES = 32
MAX_CANDIDATES = 10
MAX_MATCHED = 16
MAX_FEATURE_BYTES = 64
DIAGNOSTICS_FILE = "last-recall.json"


def _feature(text: str) -> str:
    data = text.encode("utf-8")
    return text if len(data) <= MAX_FEATURE_BYTES else data[:MAX_FEATURE_BYTES].decode("utf-8", errors="ignore") + "…"


def plan_summary(plan: QueryPlan, now: float) -> dict[str, Any]:
    """The normalized focus and context features of a plan (at most 32 each), the two
    events it joins and the time it names (as dates at ``now``), if any."""
    summary: dict[str, Any] = {
        "mode": plan.mode,
        "focus": [_feature(t.feature) for t in plan.focus[:MAX_PLAN_FEATURES]],
        "context": [_feature(t.feature) for t in plan.context[:MAX_PLAN_FEATURES]],
    }
    if plan.events:  # the two events a question of order or of time between joins
        summary["events"] = list(plan.events)
    if plan.window:  # the time the question names: claims dated within it answer (recall.dated)
        summary["time"] = describe(plan.window, now)
        summary["time_only"] = plan.window_only
    if plan.kind is not None and plan.kind.word:  # the kind of thing asked (text.asked_kind)
        summary["asks_kind"] = _feature(plan.kind.word[0])
    return summary


def candidate_summary(c: Candidate) -> dict[str, Any]:
    """One scored candidate: scores, evidence, quality factors and why it was dropped."""
    doc = c.doc
    summary = {
        "id": doc.memory_id,
        "kind": doc.kind,
        "raw": round(c.raw, 4),
        "rank": round(c.rank, 4) if c.excluded is None else None,
        "basis": doc.basis or "unknown",
        "method": doc.method or "unknown",
        "priority": doc.priority,
        "evidence_weight": round(evidence_weight(doc.priority), 2),
        "freshness": round(c.freshness, 4),
        "dormant": c.dormant,
        "pinned": bool(doc.pinned),
        "utility": utility_factor(doc.utility),
        "accuracy": accuracy_factor(doc.accuracy),
        "matched": [_feature(f) for f in c.matched[:MAX_MATCHED]],
        "context_matched": [_feature(f) for f in c.context_matched[:MAX_MATCHED]],
        "excluded": c.excluded,
    }
    if c.complement:
        summary["complement"] = True
    if c.event:
        summary["event"] = c.event
    if c.reply_to:
        summary["reply_to"] = c.reply_to
    if c.updates:
        summary["updates"] = c.updates
    return summary


def build_diagnostics(
    *,
    plan: QueryPlan,
    trigger: str,
    now: float,
    indexed: int,
    matched: int,
    scored: int,
    candidates: Sequence[Candidate],
    chosen: Sequence[Candidate],
    digest_claims: int,
    digest_bytes: int,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """Everything one recall decided, small enough to keep and to print."""
    lifecycle = {
        "indexed": indexed,
        "matched": matched,
        "scored": scored,
        "passed_gates": sum(1 for c in candidates if c.excluded not in _GATE_REASONS),
        "dormant": sum(1 for c in candidates if c.dormant),
        "aging": sum(1 for c in candidates if c.freshness < 0.85),
        "selected": len(chosen),
    }
    chosen_ids = {c.doc.memory_id for c in chosen}
    rest = sorted(
        (c for c in candidates if c.doc.memory_id not in chosen_ids),
        key=lambda c: (c.excluded in _GATE_REASONS, -c.raw, c.doc.memory_id),
    )
    shown = [*chosen, *rest][:MAX_CANDIDATES]
    diagnostics: dict[str, Any] = {
        "trigger": trigger,
        "at": now,
        "plan": plan_summary(plan, now),
        "lifecycle": lifecycle,
        "candidates": [candidate_summary(c) for c in shown],
        "digest": {"claims": digest_claims, "bytes": digest_bytes},
    }
    if notes:
        diagnostics["notes"] = list(notes)[:10]
    return cap_diagnostics(diagnostics)


# Reasons given by the relevance gates (as opposed to lifecycle and selection).
_GATE_REASONS = frozenset(
    {
        "no_focus_match",
        "quoted_question_only",
        "no_qualifying_match",
        "literal_missing",
        "focus_coverage",
        "too_few_matches",
        "unknown_words",
        "unknown_subject",
        "named_subject_missing",
        "named_attribute_missing",
        "possessor_missing",
        "context_subject_missing",
    }
)


# What each exclusion reason means, for `memevo explain QUERY --claim ID`.
REASON_TEXT = {
    "not_found": "no claim has this id",
    "not_recallable": "the claim is not recallable (only active claims not assessed incorrect are indexed)",
    "no_focus_match": "it shares no word with the question",
    "quoted_question_only": "it matches only inside a quoted question, which is no evidence of an answer",
    "no_qualifying_match": "it matches only generic, very common or origin words, which cannot qualify a claim",
    "literal_missing": "the question names a path, file or identifier the claim does not hold",
    "focus_coverage": "it matches too small a share of the question's weight",
    "too_few_matches": "it matches too few of the question's words",
    "unknown_words": "its one matching word stands beside a word no stored claim holds",
    "unknown_subject": "a short question asks a value of a subject no stored claim names: nothing answers it",
    "named_subject_missing": "a short question about a named subject: the claim does not name it",
    "possessor_missing": "the question asks about somebody's wife, kids …: the claim does not name both them and whose",
    "named_attribute_missing": "a short question about a named subject's attribute: the claim lacks the attribute",
    "context_subject_missing": "it does not mention the subject the conversation is about",
    "not_scored": "the question is so ambiguous that scoring stopped before this claim",
    "not_read": (
        "a word of the question is held by so many claims that only the most recently updated "
        "ones were read, and this claim is older"
    ),
    "dormant": "it is older than its kind's dormancy horizon (an explicit lookup can include it)",
    "below_relative_cutoff": "a better claim matched much more strongly (the relative cutoff)",
    "ambiguous": "more than four claims of its origin matched about as strongly: the question picks none out",
    "request": (
        "it is a request made to the assistant, and the question asks what the assistant said: "
        "the reply stated right after it answers"
    ),
    "duplicate_content": "a better claim of the same origin has the same text",
    "redundant_facet": "a better claim of the same origin and kind already answers the same words",
    "superseded": (
        "the question asks what holds now, and a newer claim of the same origin and kind answers the same words"
    ),
    "another_person": "the question asks about one person, and this claim speaks of another, not of that one",
    "unknown_person": "the question asks about a person by their relation, and no claim names that relation",
    "no_value": (
        "the question asks a value, and another claim states one: this one holds the attribute's word without a value"
    ),
    "over_limit": "better claims filled the three places",
    "outside_window": "the question names a time, and claims dated within it answer; this one is dated outside it",
}


# Said of a claim without the word naming the kind a question asks (recall.kinds.judged_units).
KIND_TEXT = (
    "the question asks for a kind of thing ({}): a claim without the word is measured without it "
    "when it holds a word qualifying the kind or naming the question's subject"
)


def claim_verdict(
    conn: DbConn,
    memory_id: str,
    candidates: Sequence[Candidate],
    chosen: Sequence[Candidate],
    plan: QueryPlan,
    lead: Lead | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """What one recall did with one claim: selected, or which gate or step dropped it (and,
    for a question naming a time, whether the claim is dated within it, at ``now``)."""
    verdict: dict[str, Any] = {"id": memory_id, "selected": False}
    found = next((c for c in candidates if c.doc.memory_id == memory_id), None)
    if found is None:
        # Another member's personal claim is as absent as no claim (memory_core.store.schema.owners).
        mine, params = visible_clause(conn)
        row = conn.execute(f"SELECT status FROM memories WHERE id=?{mine}", (memory_id, *params)).fetchone()
        verdict["reason"] = "not_found" if row is None else "not_recallable"
        if row is not None:
            verdict["status"] = row[0]
        verdict["stage"] = "index"
        verdict["detail"] = REASON_TEXT[verdict["reason"]]
        return verdict
    matched = set(found.matched)
    verdict.update(candidate_summary(found))
    verdict["selected"] = any(c.doc.memory_id == memory_id for c in chosen)
    verdict["reason"] = None if verdict["selected"] else (found.excluded or "not_loaded")
    verdict["coverage"] = round(found.coverage, 3)
    verdict["complement"] = found.complement
    # An attribute and its value class are one thing asked two ways: the attribute stands
    # for both when neither was found, and neither is missing when one was.
    # A claim chosen for one of two events was judged on that event alone (its coverage is
    # of the event): what it misses is of the event too.
    asked = build_plan([found.event]) if found.event else plan
    values = value_groups(asked.focus)
    said = {t.group for t in asked.focus if t.group in values and t.feature in matched}
    verdict["missing"] = [
        _feature(t.feature)
        for t in asked.focus
        if t.feature not in matched and not is_value_class(t.feature) and t.group not in said
    ][:MAX_MATCHED]
    if asked.kind is not None and asked.kind.word and not matched.intersection(asked.kind.word):
        verdict["asked_kind"] = KIND_TEXT.format(_feature(asked.kind.word[0]))
    if verdict["reason"] is not None:
        verdict["stage"] = "gate" if found.excluded in _GATE_REASONS else "selection"
        verdict["detail"] = REASON_TEXT.get(verdict["reason"], verdict["reason"])
    if lead is not None and lead.candidate is found:
        verdict["lead"] = lead_text(lead)
    if plan.window and now is not None:
        verdict["time"] = describe(plan.window, now)
        verdict["dated_within"] = within(found.doc, span(plan.window, now))
        verdict["time_only"] = plan.window_only
    return verdict


def lead_text(lead: Lead) -> str:
    """Why the lexical lead (:mod:`memory_core.recall.lead`) was taken or not, in words."""
    gate = REASON_TEXT.get(lead.gate or "", lead.gate or "it passed")
    ahead = "no other claim matched" if lead.ratio == float("inf") else f"{lead.ratio:.2f}x the next claim's score"
    if lead.taken:
        return (
            f"no claim passed the relevance gates; this one failed one ({gate}), but it leads the "
            f"lexical ranking ({ahead}, at least {LEAD_RATIO}x needed) and matches "
            f"{lead.candidate.coverage:.0%} of the question (at least {LEAD_MIN_COVERAGE:.0%} needed)"
        )
    if lead.firm is not None and lead.firm != lead.gate:
        firm = REASON_TEXT.get(lead.firm, lead.firm)
        return (
            f"no claim passed the relevance gates and this one leads the lexical ranking ({ahead}), "
            f"but it is not taken: besides failing one ({gate}) it fails a gate a lead cannot "
            f"overrule ({firm})"
        )
    return (
        f"no claim passed the relevance gates and this one leads the lexical ranking ({ahead}), "
        f"but it is not taken: a lead needs at least {LEAD_RATIO}x, {LEAD_MIN_COVERAGE:.0%} of the "
        "question, an awake claim and none of the firm gates (no word of the question itself, a "
        "quoted question only, a missing path or identifier, an unknown subject, a short "
        "question's named subject or attribute missing)"
    )


def _size(data: dict[str, Any]) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def cap_diagnostics(data: dict[str, Any], limit: int = MAX_DIAGNOSTIC_BYTES) -> dict[str, Any]:
    """Drop candidates, then plan features, until the JSON fits in ``limit`` bytes."""
    data = dict(data)
    candidates = list(data.get("candidates", []))
    while _size(data) > limit and candidates:
        candidates.pop()
        data["candidates"] = candidates
        data["truncated"] = True
    plan = dict(data.get("plan", {}))
    while _size(data) > limit and (plan.get("focus") or plan.get("context")):
        key = "context" if plan.get("context") else "focus"
        plan[key] = plan[key][: len(plan[key]) // 2]
        data["plan"] = plan
        data["truncated"] = True
    if _size(data) > limit:
        data = {"trigger": data.get("trigger"), "at": data.get("at"), "truncated": True}
    return data


def diagnostics_path(home: Path) -> Path:
    """Where the last automatic recall's diagnostics live."""
    return home / DIAGNOSTICS_FILE


def write_last_diagnostics(home: Path, diagnostics: dict[str, Any]) -> None:
    """Replace the stored diagnostics atomically; the file is private (0600).

    Fails silently when the state dir is not writable: diagnostics never break a recall.
    """
    # Imported here: only the hook writes this file, and recall processes start often.
    import contextlib
    import os

    from memory_core.paths import private_temp_file

    text = json.dumps(cap_diagnostics(diagnostics), ensure_ascii=False, separators=(",", ":"))
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = private_temp_file(home, ".last-recall-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, diagnostics_path(home))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


# What a failed attempt's diagnostics say about it: a reason code and what to do.
FAILURES = {
    "no_store": "no memory store in this state dir: nothing to recall (`memevo status` shows where it is looked for)",
    "store_error": "the memory store could not be read; run `memevo doctor`",
}
MAX_ERROR_CHARS = 300


def failed_diagnostics(reason: str, *, now: float, error: BaseException | None = None) -> dict[str, Any]:
    """The diagnostics of an automatic recall that could not run (``reason`` in :data:`FAILURES`)."""
    detail = FAILURES[reason]
    if error is not None:
        detail += f" ({type(error).__name__}: {str(error)[:MAX_ERROR_CHARS]})"
    return {"trigger": "turn", "at": now, "failed": reason, "detail": detail, "digest": {"claims": 0, "bytes": 0}}


def record_failed_recall(home: Path, reason: str, *, now: float, error: BaseException | None = None) -> None:
    """Replace the last diagnostics with a failed attempt's, so `memevo explain` never shows an
    earlier turn as the last one. Nothing is written where no state dir exists (nothing could
    be stale there, and a hook creates no state dir). Never raises."""
    try:
        if home.is_dir():
            write_last_diagnostics(home, failed_diagnostics(reason, now=now, error=error))
    except Exception:  # diagnostics never break a hook, least of all a failing one
        return


def read_last_diagnostics(home: Path) -> dict[str, Any] | None:
    """The last automatic recall's diagnostics, or ``None`` if there are none (or they are unreadable)."""
    try:
        data = json.loads(diagnostics_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
