"""Evidence policy: which host-assigned evidence a claim gets, and whether new evidence may
replace an existing claim.

Everything here is pure: records, evidence and times go in, a label or a decision comes
out. The consolidation apply and the manual controls call it; nothing here reads the clock
or the database.

Priorities are ordinal source-appropriateness ranks, not probabilities that a claim is true:

======================================================  ========
evidence of the record                                  priority
======================================================  ========
none recorded (older or imported records)                  0
summary (local or model extraction)                         1
user statement about a fact or a project state              2
user statement about a preference or a decision             3
tool observation about a project state                      3
manual correction                                           4
any record the user assessed ``accurate``                   4
======================================================  ========

memevo has no separate "confirmed" verification state: ``Memory.confirmed_at`` only feeds
the aging clock (a record left standing is *not disputed*, never *verified*), so it adds
no replacement authority.
"""

from __future__ import annotations

from enum import StrEnum

from memory_core.records import Evidence, Memory

UNKNOWN_PRIORITY = 0
SUMMARY_PRIORITY = 1
MANUAL_PRIORITY = 4
# The highest priority that counts as "earlier testimony" a current user statement may
# supersede: everything except manual corrections and explicit `accurate` assessments.
TESTIMONY_CEILING = 3


class Decision(StrEnum):
    """What may happen to an existing claim that new evidence proposes to replace."""

    ALLOW = "allow"
    # The new variant is weaker than the claim it targets: keep the target untouched and
    # store the variant quarantined as ``conflicted``.
    WITHHOLD_WEAKER = "withhold_weaker"
    PINNED = "pinned"
    STALE = "stale"
    KIND_CHANGE = "kind_change"
    CROSS_ORIGIN = "cross_origin"
    NOT_ACTIVE = "not_active"

    @property
    def rejected(self) -> bool:
        """True for the guards that refuse the replacement outright."""
        return self not in (Decision.ALLOW, Decision.WITHHOLD_WEAKER)


def evidence_priority(evidence: Evidence | None, kind: str) -> int:
    """The ordinal priority of ``evidence`` attached to a claim of ``kind``."""
    if evidence is None:
        return UNKNOWN_PRIORITY
    if evidence.basis == "manual_correction":
        return MANUAL_PRIORITY
    if evidence.basis == "user_statement":
        return 3 if kind in ("preference", "decision") else 2
    if evidence.basis == "tool_observation":
        # Observations are only appropriate evidence for project states; anywhere else
        # they carry no authority (records.py refuses them there anyway).
        return 3 if kind == "project_state" else UNKNOWN_PRIORITY
    return SUMMARY_PRIORITY


def source_priority(memory: Memory) -> int:
    """The replacement priority of a stored claim (an ``accurate`` verdict lifts it to 4)."""
    accuracy = memory.feedback.accuracy
    if accuracy is not None and accuracy.verdict == "accurate":
        return MANUAL_PRIORITY
    return evidence_priority(memory.evidence, memory.kind)


def evidence_for(source_type: str, method: str, source_id: str, at: float) -> Evidence:
    """The evidence label for a claim derived from a source.

    ``summary`` keeps its extraction method (``local`` or ``model``); user statements and
    progress observations only ever become claims through the model, so any other method
    for them is a programming error.
    """
    if source_type == "summary":
        if method not in ("local", "model"):
            raise ValueError(f"summary claims are extracted locally or by the model, not {method!r}")
        return Evidence(basis="summary", method="local" if method == "local" else "model", source_id=source_id, at=at)
    if method != "model":
        raise ValueError(f"{source_type!r} sources become claims only through the model")
    if source_type == "user_statement":
        return Evidence(basis="user_statement", method="model", source_id=source_id, at=at)
    if source_type == "progress":
        return Evidence(basis="tool_observation", method="model", source_id=source_id, at=at)
    raise ValueError(f"unknown source type {source_type!r}")


def manual_evidence(action_id: str, at: float) -> Evidence:
    """Evidence of a literal correction made by a person (action id from ``ids.random_id``)."""
    return Evidence(basis="manual_correction", method="manual", source_id=action_id, at=at)


def replacement_decision(
    target: Memory,
    new_evidence: Evidence,
    new_kind: str,
    source_created_at: float,
    *,
    source_origin: str,
    is_current_user_statement: bool = False,
    is_fresh_progress_observation: bool = False,
) -> Decision:
    """Whether a claim with ``new_evidence`` from a source created at ``source_created_at``
    in ``source_origin`` may replace ``target``.

    Guards come first and no exception bypasses them: the target must be active, in the
    same origin, unpinned, of the same kind, and not updated after the source was created
    (for a fresh progress observation: not based on evidence newer than the source).
    Then priorities: equal or stronger evidence may replace; weaker evidence is withheld,
    except that

    * a current explicit user statement may supersede earlier testimony (target priority
      up to 3, never a manual correction or an ``accurate`` assessment), and
    * a fresh linked tool observation may move a project state on even after a manual
      correction or an ``accurate`` verdict, so correcting "pending" cannot freeze
      progress forever.

    Each exception applies only when the new evidence really has that basis.
    """
    if target.status != "active":
        return Decision.NOT_ACTIVE
    if source_origin != target.origin:
        return Decision.CROSS_ORIGIN
    if target.pinned:
        return Decision.PINNED
    if new_kind != target.kind:
        return Decision.KIND_CHANGE
    # A fresh observation is stale only against newer *evidence*: an earlier turn's
    # observation applied after this one was captured moved the state on, but knows less.
    last_known = target.updated_at
    if is_fresh_progress_observation and target.evidence is not None:
        last_known = target.evidence.at
    if source_created_at < last_known:
        return Decision.STALE
    old = source_priority(target)
    new = evidence_priority(new_evidence, new_kind)
    if new >= old:
        return Decision.ALLOW
    if is_current_user_statement and new_evidence.basis == "user_statement" and old <= TESTIMONY_CEILING:
        return Decision.ALLOW
    if is_fresh_progress_observation and new_evidence.basis == "tool_observation" and new_kind == "project_state":
        return Decision.ALLOW
    return Decision.WITHHOLD_WEAKER
