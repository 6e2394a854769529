"""Explicit feedback: a person's verdict on one claim, replay-safe through receipts.

Two independent slots hold the last verdict of each axis: utility (``useful`` /
``unhelpful``, a mild ranking preference, never a statement about truth) and accuracy
(``accurate`` / ``incorrect``, a user's assessment, never a test result). ``incorrect``
also quarantines the claim and its active same-content twins in its origin as
``conflicted`` (reversible by undo, correct or resolve) and retires queued sources that
would repeat it. No verdict refreshes the evidence date or revives a record that is not
active.

Receipts are keyed by (source id, memory id): replaying the same feedback source after a
restart or an undo never applies it twice, and a verdict older than the newest one already
received for that slot, or older than the claim's current evidence, changes nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memory_core import ids
from memory_core.controls.manual import commit_manual_change, live_duplicates
from memory_core.errors import ConflictError, UsageError
from memory_core.records import Memory, VerdictSlot
from memory_core.store.engines.connection import require_transaction
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.memories import require_memory
from memory_core.store.tables.suppression import retire_repeating_sources

UTILITY_VERDICTS = ("useful", "unhelpful")
ACCURACY_VERDICTS = ("accurate", "incorrect")
VERDICTS = UTILITY_VERDICTS + ACCURACY_VERDICTS


@dataclass(frozen=True)
class FeedbackResult:
    """``outcome``: applied, repeated (same verdict again: receipt only), replayed (this
    source already gave feedback on this claim) or outdated (older than what is known)."""

    outcome: str
    memory_id: str
    verdict: str
    source_id: str
    event_id: int | None = None
    after: list[Memory] = field(default_factory=list)
    retired_sources: list[str] = field(default_factory=list)


def chat_receipt_id(agent: str, session_id: str | None, message: str) -> str:
    """The feedback source id of a whole chat message: an agent re-sending the same message
    in the same session gives the same id, so its receipt makes the repeat a no-op."""
    key = f"{agent}|{session_id or '-'}|{message}"
    return "chat-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def _slot(verdict: str) -> str:
    return "utility" if verdict in UTILITY_VERDICTS else "accuracy"


def _latest_receipt(conn: DbConn, memory_id: str, slot: str) -> float | None:
    verdicts = UTILITY_VERDICTS if slot == "utility" else ACCURACY_VERDICTS
    row = conn.execute(
        "SELECT MAX(at) FROM feedback_receipts WHERE memory_id=? AND verdict IN (?, ?)", (memory_id, *verdicts)
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def give_feedback(
    conn: DbConn,
    memory_id: str,
    verdict: str,
    now: float,
    *,
    source_id: str | None = None,
    at: float | None = None,
) -> FeedbackResult:
    """Record ``verdict`` on a claim (inside ``store.transaction()``).

    ``source_id`` identifies where the feedback came from (a fresh action id when a person
    runs the command); ``at`` is when it was given (default ``now``).
    """
    require_transaction(conn, "feedback")
    if verdict not in VERDICTS:
        raise UsageError(f"unknown verdict {verdict!r}; use one of: {', '.join(VERDICTS)}")
    target = require_memory(conn, memory_id)
    source = source_id or ids.random_id()
    given_at = now if at is None else at
    if conn.execute(
        "SELECT 1 FROM feedback_receipts WHERE source_id=? AND memory_id=?", (source, memory_id)
    ).fetchone():
        return FeedbackResult("replayed", memory_id, verdict, source)
    if target.status != "active":
        raise ConflictError(
            f"memory {memory_id} is {target.status}; feedback applies to active memories only "
            "(use `memevo resolve` for a conflicted one)"
        )
    slot = _slot(verdict)
    latest = _latest_receipt(conn, memory_id, slot)
    conn.execute(
        "INSERT INTO feedback_receipts (source_id, memory_id, verdict, at) VALUES (?, ?, ?, ?)",
        (source, memory_id, verdict, given_at),
    )
    evidence_at = target.evidence.at if target.evidence is not None else None
    if (latest is not None and given_at < latest) or (evidence_at is not None and given_at < evidence_at):
        return FeedbackResult("outdated", memory_id, verdict, source)
    current = getattr(target.feedback, slot)
    if current is not None and current.verdict == verdict:
        return FeedbackResult("repeated", memory_id, verdict, source)
    feedback = target.feedback.model_copy(update={slot: VerdictSlot(verdict=verdict, source_id=source, at=given_at)})
    before = [target]
    after = [target.model_copy(update={"feedback": feedback})]
    retired: list[str] = []
    if verdict == "incorrect":
        twins = [m for m in live_duplicates(conn, target) if m.status == "active"]
        before += twins
        after = [after[0].model_copy(update={"status": "conflicted"})]
        after += [m.model_copy(update={"status": "conflicted"}) for m in twins]
        retired = retire_repeating_sources(conn, target.origin, [target.content], now)
    event_id = commit_manual_change(
        conn, "feedback", before, after, now, source, {"verdict": verdict, "retired_sources": retired}
    )
    return FeedbackResult("applied", memory_id, verdict, source, event_id, after, retired)
