"""Manual controls: forget, correct, pin, unpin and resolve a claim by its exact id.

Each function runs inside the caller's ``store.transaction()`` and, when it changes
anything, writes one event holding the actual records before and after, and bumps the
origin generation so model output computed before the change is refused as stale.
Every action gets a fresh action id (the event's ``source_id``; a correction's evidence).

Time rules: only a correction moves ``updated_at`` (it is new content). Forget, pin,
unpin and resolve change status or flags, never the content, so they leave ``updated_at``
(the replacement authority gate) and the evidence date alone; the event records when the
action happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_core import ids
from memory_core.errors import ConflictError, UsageError
from memory_core.evidence import manual_evidence
from memory_core.privacy.sanitize import sanitize_text
from memory_core.records import Feedback, Memory
from memory_core.store.engines.connection import require_transaction
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import SHARED, claim_scope, visible_clause
from memory_core.store.tables.changes import ChangeSet
from memory_core.store.tables.claim_ids import claim_id_on
from memory_core.store.tables.memories import get_memory, memory_from_row, require_memory
from memory_core.store.tables.suppression import block_claim, retire_repeating_sources

MAX_CONTENT_CHARS = 4000
# Statuses a duplicate can have and still be live enough to follow its twin.
_LIVE = ("active", "conflicted")


@dataclass(frozen=True)
class ManualResult:
    """What a manual action did: its event (``None`` when nothing needed to change)."""

    event_id: int | None
    before: list[Memory] = field(default_factory=list)
    after: list[Memory] = field(default_factory=list)
    retired_sources: list[str] = field(default_factory=list)


def _without_incorrect_verdict(feedback: Feedback) -> Feedback:
    if feedback.accuracy is not None and feedback.accuracy.verdict == "incorrect":
        return Feedback(utility=feedback.utility, accuracy=None)
    return feedback


def _require_live(conn: DbConn, memory_id: str, what: str) -> Memory:
    """The record, if it is active or conflicted; otherwise a clear refusal."""
    target = require_memory(conn, memory_id)
    if target.status not in _LIVE:
        raise ConflictError(f"memory {memory_id} is {target.status}; only active or conflicted memories can be {what}")
    return target


def live_duplicates(conn: DbConn, memory: Memory) -> list[Memory]:
    """Active or conflicted records of the same origin with exactly the same content that
    the current person may see: another member's identical personal claim is theirs, even
    for the administrator, whose login row-level security does not bind."""
    mine, params = visible_clause(conn)
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE origin=? AND content_hash=? AND id<>?{mine} ORDER BY id",
        (memory.origin, memory.content_hash, memory.id, *params),
    ).fetchall()
    return [m for m in (memory_from_row(r) for r in rows) if m.status in _LIVE]


def commit_manual_change(
    conn: DbConn,
    operation: str,
    before: list[Memory],
    after: list[Memory],
    now: float,
    action_id: str,
    details: dict[str, object] | None = None,
) -> int:
    """Write a person's change and its event; the origin generation moves."""
    changes = ChangeSet(conn, f"{operation}")
    changes.write_all(before, after)
    event_id = changes.commit(
        at=now, actor="user", operation=operation, source_id=action_id, manual=True, details=details
    )
    assert event_id is not None  # a manual change always writes its records
    return event_id


def forget(conn: DbConn, memory_id: str, now: float) -> ManualResult:
    """Tombstone a claim and its exact same-content twins in its origin, and block the content.

    Nothing is erased: the records stay as ``forgotten``. Queued sources of that origin
    that repeat the content are retired. Forgetting a tombstone again changes nothing.
    """
    require_transaction(conn, "manual actions")
    target = require_memory(conn, memory_id)
    if target.status == "forgotten":
        return ManualResult(event_id=None)
    before = [target, *live_duplicates(conn, target)]
    after = [m.model_copy(update={"status": "forgotten"}) for m in before]
    block_claim(conn, target, now, "forgotten")
    retired = retire_repeating_sources(conn, target.origin, [target.content], now)
    action_id = ids.random_id()
    event_id = commit_manual_change(conn, "forget", before, after, now, action_id, {"retired_sources": retired})
    return ManualResult(event_id, before, after, retired)


def _clean_correction(text: str) -> str:
    cleaned = sanitize_text(text)
    if not cleaned:
        raise UsageError("the correction is empty; give the full corrected text")
    if len(cleaned) > MAX_CONTENT_CHARS:
        raise UsageError(f"the correction is {len(cleaned)} characters; keep it within {MAX_CONTENT_CHARS}")
    return cleaned


def _refuse_taking_shared_claim_private(conn: DbConn, target: Memory, content: str) -> None:
    """On a team store, a correction may not turn the team's shared claim into a personal
    one (text in the first person, or holding a secret): the team would lose the claim with
    no history of it it may read (docs/team.md). One-person stores correct as always."""
    scope = claim_scope(target.kind, target.origin, target.content, target.search_terms)
    if scope != SHARED or claim_scope(target.kind, target.origin, content) == SHARED:
        return
    from memory_core.store.engines.dbapi import is_postgres
    from memory_core.store.schema.policies import row_security_on

    if is_postgres(conn) and row_security_on(conn):
        raise UsageError(
            f"memory {target.id} is shared with the team, and this correction would make it personal "
            "(it speaks of you or holds a secret): correct it with text the team can share, or tell "
            "your agent your own preference and memevo learns it as yours"
        )


def correct(conn: DbConn, memory_id: str, text: str, now: float) -> ManualResult:
    """Replace a claim's content with a person's literal correction.

    The new record (id from origin, kind and new content, and the corrector when it is a
    member's personal claim: memory_core.store.tables.claim_ids) carries manual-correction
    evidence, no aliases and no feedback: old assessments described other content. The old
    record and its live same-content twins become ``superseded`` and the old content is
    blocked in the origin. A record already stored under the new id (say, a tombstone of
    that same text) is overwritten, and the event keeps its prior state for undo.
    """
    require_transaction(conn, "manual actions")
    target = _require_live(conn, memory_id, "corrected (see `memevo show` for what replaced it)")
    content = _clean_correction(text)
    _refuse_taking_shared_claim_private(conn, target, content)
    new_id = claim_id_on(conn, target.origin, target.kind, content)
    if new_id == target.id:
        raise UsageError(f"memory {memory_id} already says that; use `memevo resolve` or `memevo pin` instead")
    action_id = ids.random_id()
    replaced = [target, *live_duplicates(conn, target)]
    occupant = get_memory(conn, new_id)
    if occupant is not None and occupant.id in {m.id for m in replaced}:
        occupant = None
    corrected = Memory(
        id=new_id,
        origin=target.origin,
        kind=target.kind,
        status="active",
        content=content,
        content_hash=ids.content_hash(content),
        search_terms=[],
        source_id=action_id,
        evidence=manual_evidence(action_id, now),
        feedback=Feedback(),
        pinned=target.pinned,
        created_at=now,
        updated_at=now,
        revision=target.revision + 1,
        replaces=target.id,
    )
    before = replaced + ([occupant] if occupant is not None else [])
    after = [m.model_copy(update={"status": "superseded", "replaced_by": new_id}) for m in replaced]
    after.append(corrected)
    block_claim(conn, target, now, "corrected")
    retired = retire_repeating_sources(conn, target.origin, [target.content], now)
    event_id = commit_manual_change(
        conn, "correct", before, after, now, action_id, {"retired_sources": retired, "corrected_to": new_id}
    )
    return ManualResult(event_id, before, after, retired)


def _set_pinned(conn: DbConn, memory_id: str, pinned: bool, now: float) -> ManualResult:
    require_transaction(conn, "manual actions")
    target = _require_live(conn, memory_id, "pinned or unpinned")
    if target.pinned == pinned:
        return ManualResult(event_id=None)
    after = [target.model_copy(update={"pinned": pinned})]
    operation = "pin" if pinned else "unpin"
    event_id = commit_manual_change(conn, operation, [target], after, now, ids.random_id())
    return ManualResult(event_id, [target], after)


def pin(conn: DbConn, memory_id: str, now: float) -> ManualResult:
    """Pin a claim: automatic learning may not replace it and it does not age.

    Pinning adds no credibility and does not revive a conflicted claim.
    """
    return _set_pinned(conn, memory_id, True, now)


def unpin(conn: DbConn, memory_id: str, now: float) -> ManualResult:
    """Remove a pin; the claim ages and can be replaced again from its unchanged dates."""
    return _set_pinned(conn, memory_id, False, now)


def resolve(conn: DbConn, memory_id: str, now: float) -> ManualResult:
    """Return a quarantined (``conflicted``) claim to ``active``.

    The evidence date and ``updated_at`` stay as they were, so an old state does not look
    fresh again. An ``incorrect`` accuracy verdict is cleared, because that verdict is what
    quarantined the claim and resolving is the person overruling it; other feedback stays.
    The claim it once proposed to replace is not touched.
    """
    require_transaction(conn, "manual actions")
    target = require_memory(conn, memory_id)
    if target.status != "conflicted":
        raise ConflictError(f"memory {memory_id} is {target.status}, not conflicted; nothing to resolve")
    after = [target.model_copy(update={"status": "active", "feedback": _without_incorrect_verdict(target.feedback)})]
    event_id = commit_manual_change(conn, "resolve", [target], after, now, ids.random_id())
    return ManualResult(event_id, [target], after)
