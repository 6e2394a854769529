"""Applying a validated model batch: guards first, then writes, event and completion,
all in the caller's one ``BEGIN IMMEDIATE`` transaction.

Guards that make the batch unusable (unknown, cross-origin, pinned, stale, duplicate or
cyclic targets, kind changes, progress rules) reject it whole. A replacement whose
evidence is weaker than its target's is not a defect: its new variant is quarantined as
``conflicted``, the target stays, and the job still completes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from memory_core import evidence as policy
from memory_core.consolidation.contract import ModelBatch, Proposal
from memory_core.errors import LeaseLost, StaleOutput, WriteRejected
from memory_core.ids import normalize_content
from memory_core.jobs.lifecycle import Lease, complete_job, holds_lease
from memory_core.records import Evidence, Memory, Reason, Source, new_memory, reason_code
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.changes import ChangeSet
from memory_core.store.tables.claim_ids import claim_id, id_owner
from memory_core.store.tables.generations import current_generation
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.origin_aliases import same_project
from memory_core.store.tables.suppression import block_claim, is_blocked, retire_repeating_sources


class GuardRejected(WriteRejected):
    """A write guard refused the batch, with its allowlisted reason code."""

    def __init__(self, code: Reason, reason: str) -> None:
        super().__init__(reason)
        self.reason_code = reason_code(code)


_DECISION_REASONS = {
    policy.Decision.PINNED: Reason.PINNED_TARGET,
    policy.Decision.STALE: Reason.STALE_TARGET,
    policy.Decision.KIND_CHANGE: Reason.KIND_CHANGE,
    policy.Decision.CROSS_ORIGIN: Reason.OTHER_ORIGIN_TARGET,
    policy.Decision.NOT_ACTIVE: Reason.TARGET_NOT_ACTIVE,
}


@dataclass
class ApplyReport:
    """What one batch changed (ids), for status, history and tests."""

    added: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)
    withheld: int = 0
    confirmed: list[str] = field(default_factory=list)
    refreshed: list[str] = field(default_factory=list)
    aliased: list[str] = field(default_factory=list)
    skipped_blocked: int = 0
    retired_sources: list[str] = field(default_factory=list)
    event_id: int | None = None

    @property
    def changed(self) -> bool:
        return bool(
            self.added or self.superseded or self.conflicted or self.confirmed or self.refreshed or self.aliased
        )


def _check_guards(
    conn: DbConn,
    source: Source,
    batch: ModelBatch,
    candidate_ids: set[str],
    new_evidence: Evidence,
    owner: str | None,
) -> dict[str, tuple[Memory, policy.Decision]]:
    """Targets and their decisions by id, or :class:`WriteRejected` for a batch the store
    must not apply."""
    targets: dict[str, tuple[Memory, policy.Decision]] = {}
    new_ids = Counter(build_id(source, c, owner) for c in batch.claims)
    for proposed in batch.claims:
        if source.source_type == "progress":
            if proposed.kind != "project_state" or proposed.replaces is None:
                raise GuardRejected(Reason.PROGRESS_RULE, "a progress source may only update a nominated project state")
        if proposed.replaces is None:
            continue
        target_id = proposed.replaces
        if target_id in targets:
            raise GuardRejected(Reason.DUPLICATE_TARGET, "two claims replace the same target")
        target = get_memory(conn, target_id)
        if target is None or target_id not in candidate_ids:
            raise GuardRejected(Reason.UNKNOWN_REPLACEMENT_ID, "replacement target was not offered as a candidate")
        # A claim of a path origin recorded as an alias of the source's project is the project's.
        if target.origin != source.origin and not same_project(conn, target.origin, source.origin):
            raise GuardRejected(Reason.OTHER_ORIGIN_TARGET, "replacement target belongs to another origin")
        # A proposal that restates its own target (same origin, kind and content, so the same
        # id) reaffirms it; another proposal producing the target makes a cycle.
        restates = build_id(source, proposed, owner) == target_id
        if new_ids[target_id] > int(restates):
            raise GuardRejected(Reason.REPLACEMENT_CYCLE, "replacement cycle within the batch")
        decision = policy.replacement_decision(
            target,
            new_evidence,
            proposed.kind,
            source.created_at,
            source_origin=target.origin,  # the same project: checked just above
            is_current_user_statement=source.source_type == "user_statement",
            is_fresh_progress_observation=source.source_type == "progress",
        )
        if decision.rejected:
            raise GuardRejected(
                _DECISION_REASONS.get(decision, Reason.INVALID_VALUE), f"replacement refused: {decision.value}"
            )
        targets[target_id] = (target, decision)
    return targets


def build_id(source: Source, proposed: Proposal, owner: str | None) -> str:
    """The id a proposal would get in the source's origin, written by the worker's person
    (``owner`` from :func:`memory_core.store.tables.claim_ids.id_owner`)."""
    return claim_id(owner, source.origin, proposed.kind, normalize_content(proposed.content))


def apply_batch(
    conn: DbConn,
    lease: Lease,
    batch: ModelBatch,
    candidates: list[Memory],
    model_id: str,
    now: float,
) -> ApplyReport:
    """Apply ``batch`` under ``lease`` and complete the job (inside a transaction)."""
    if not holds_lease(conn, lease):
        raise LeaseLost("the lease on this job was lost; the late result was dropped")
    source = lease.source
    if current_generation(conn, source.origin) != lease.generation:
        raise StaleOutput("memories of this origin changed while the model was working")
    new_evidence = policy.evidence_for(source.source_type, "model", source.id, source.created_at)
    # The worker runs as its person's login: a member's personal claims name them in their ids.
    owner = id_owner(conn)
    targets = _check_guards(conn, source, batch, {m.id for m in candidates}, new_evidence, owner)
    report = ApplyReport()
    changes = ChangeSet(conn, "applying a model batch")

    withheld_ids: set[str] = set()
    for proposed in batch.claims:
        if proposed.replaces is not None:
            target, decision = targets[proposed.replaces]
            variant = _new_claim(source, proposed, new_evidence, model_id, now, owner, replaces=target.id)
            _apply_replacement(
                conn, source, variant, target, decision, new_evidence, now, changes, report, withheld_ids
            )
    for proposed in batch.claims:
        if proposed.replaces is None:
            variant = _new_claim(source, proposed, new_evidence, model_id, now, owner)
            _apply_addition(conn, source, variant, new_evidence, now, changes, report, withheld_ids)
    _quarantine_local_variants(conn, source, withheld_ids, now, changes, report)
    _confirm_standing(conn, source, candidates, targets, now, changes, report)

    report.event_id = changes.commit(
        at=now,
        actor="model",
        operation="consolidate",
        source_id=source.id,
        manual=False,
        reason=f"model {model_id}",
        details={
            "added": len(report.added),
            "superseded": len(report.superseded),
            "withheld_replacements": report.withheld,
            "conflicted": len(report.conflicted),
            "confirmed": len(report.confirmed),
            "refreshed": len(report.refreshed),
            "aliased": len(report.aliased),
            "skipped_blocked": report.skipped_blocked,
        },
    )
    if not complete_job(conn, lease, now):
        raise LeaseLost("the lease on this job was lost before completion")
    return report


def _new_claim(
    source: Source,
    proposed: Proposal,
    evidence: Evidence,
    model_id: str,
    now: float,
    owner: str | None,
    replaces: str | None = None,
) -> Memory:
    return new_memory(
        claim_id=build_id(source, proposed, owner),
        origin=source.origin,
        kind=proposed.kind,
        content=proposed.content,
        source_id=source.id,
        evidence=evidence,
        now=now,
        model_id=model_id,
        search_terms=proposed.search_terms,
        replaces=replaces,
    )


def _apply_replacement(
    conn: DbConn,
    source: Source,
    variant: Memory,
    target: Memory,
    decision: policy.Decision,
    evidence: Evidence,
    now: float,
    changes: ChangeSet,
    report: ApplyReport,
    withheld_ids: set[str],
) -> None:
    if variant.id == target.id:
        # The model restated the target: unchanged content, possibly new evidence.
        _reaffirm(conn, source, target, variant, evidence, now, changes, report)
        return
    if decision == policy.Decision.WITHHOLD_WEAKER:
        report.withheld += 1
        withheld_ids.add(variant.id)
        _store_conflicted(conn, variant, now, changes, report)
        return
    if is_blocked(conn, variant.origin, variant.content_hash):
        report.skipped_blocked += 1
        return
    existing = get_memory(conn, variant.id)
    if existing is not None and existing.status == "active":
        # The new value is already stored: attach the newer evidence to it (never weaker
        # than what it had). Its content is not new, so its own feedback stays.
        refreshed = existing.model_copy(update={"evidence": _renewed_evidence(existing, evidence), "updated_at": now})
        changes.write(existing, refreshed)
        report.refreshed.append(existing.id)
        new_id = existing.id
    else:
        changes.write(existing, variant)
        report.added.append(variant.id)
        new_id = variant.id
    retired = target.model_copy(update={"status": "superseded", "replaced_by": new_id, "updated_at": now})
    changes.write(target, retired)
    report.superseded.append(target.id)
    block_claim(conn, target, now, "superseded")
    report.retired_sources.extend(
        retire_repeating_sources(conn, target.origin, [target.content], now, except_source_id=source.id)
    )


def _store_conflicted(conn: DbConn, variant: Memory, now: float, changes: ChangeSet, report: ApplyReport) -> None:
    existing = get_memory(conn, variant.id)
    if is_blocked(conn, variant.origin, variant.content_hash):
        report.skipped_blocked += 1
        return
    if existing is not None and existing.status != "active":
        return
    if existing is not None and existing.source_id != variant.source_id:
        return  # an unrelated existing record is never quarantined
    quarantined = (existing or variant).model_copy(update={"status": "conflicted", "updated_at": now})
    changes.write(existing, quarantined)
    report.conflicted.append(variant.id)


def from_same_source(record: Memory, source: Source) -> bool:
    """True when ``record`` was derived from ``source`` itself (its origin source or its
    current evidence): a model pass over that source cannot confirm what it already said."""
    return record.source_id == source.id or (record.evidence is not None and record.evidence.source_id == source.id)


def _reaffirm(
    conn: DbConn,
    source: Source,
    target: Memory,
    variant: Memory,
    evidence: Evidence,
    now: float,
    changes: ChangeSet,
    report: ApplyReport,
) -> None:
    update: dict[str, object] = {}
    if from_same_source(target, source):
        pass  # restating a claim of its own source confirms nothing (aliases may still grow)
    elif _refreshes_evidence(source, target):
        update["evidence"] = _renewed_evidence(target, evidence)
        report.refreshed.append(target.id)
    elif target.kind != "project_state" and source.source_type != "progress":
        update["confirmed_at"] = now
        report.confirmed.append(target.id)
    terms = _merged_terms(target.search_terms, variant.search_terms)
    if terms != target.search_terms:
        update["search_terms"] = terms
        report.aliased.append(target.id)
    if update:
        changes.write(changes.after.get(target.id, target), target.model_copy(update=update))


def _refreshes_evidence(source: Source, target: Memory) -> bool:
    """Reaffirmation by the user, or a fresh progress observation, renews the evidence date;
    repeated summaries do not."""
    return source.source_type in ("user_statement", "progress")


def _renewed_evidence(record: Memory, newer: Evidence) -> Evidence:
    """The newer evidence, unless it is weaker than the record's own: then only the date
    moves, so a reaffirmation never lowers a record's replacement priority."""
    if record.evidence is None or policy.evidence_priority(newer, record.kind) >= policy.source_priority(record):
        return newer
    return record.evidence.model_copy(update={"at": max(record.evidence.at, newer.at)})


def _merged_terms(old: list[str], new: list[str]) -> list[str]:
    merged = list(old)
    for term in new:
        if term.lower() not in {t.lower() for t in merged} and len(merged) < 8:
            merged.append(term)
    return merged


def _apply_addition(
    conn: DbConn,
    source: Source,
    variant: Memory,
    evidence: Evidence,
    now: float,
    changes: ChangeSet,
    report: ApplyReport,
    withheld_ids: set[str],
) -> None:
    if variant.id in withheld_ids:
        return  # a duplicate of a withheld replacement cannot slip in as an addition
    if is_blocked(conn, variant.origin, variant.content_hash):
        report.skipped_blocked += 1
        return
    existing = changes.after.get(variant.id) or get_memory(conn, variant.id)
    if existing is None:
        changes.write(None, variant)
        report.added.append(variant.id)
    elif existing.status == "active":
        _reaffirm(conn, source, existing, variant, evidence, now, changes, report)


def _quarantine_local_variants(
    conn: DbConn,
    source: Source,
    withheld_ids: set[str],
    now: float,
    changes: ChangeSet,
    report: ApplyReport,
) -> None:
    """Claims this same source produced locally with withheld content (any kind) are
    quarantined too, so the weaker evidence cannot stay active by another route."""
    hashes = {m.content_hash for m in changes.after.values() if m.id in withheld_ids}
    for content in sorted(hashes):
        rows = conn.execute(
            "SELECT id FROM memories WHERE origin=? AND content_hash=? AND status='active'",
            (source.origin, content),
        ).fetchall()
        for (row_id,) in rows:
            existing = changes.after.get(row_id) or get_memory(conn, row_id)
            if existing is not None and existing.status == "active" and existing.source_id == source.id:
                changes.write(existing, existing.model_copy(update={"status": "conflicted", "updated_at": now}))
                report.conflicted.append(row_id)


def _confirm_standing(
    conn: DbConn,
    source: Source,
    candidates: list[Memory],
    targets: dict[str, tuple[Memory, policy.Decision]],
    now: float,
    changes: ChangeSet,
    report: ApplyReport,
) -> None:
    """Mentioned records left standing are not disputed: that feeds their aging clock only.
    Records derived from this very source are not confirmed by it."""
    if source.source_type == "progress":
        return
    for candidate in candidates:
        if candidate.id in targets or candidate.id in changes.after or candidate.kind == "project_state":
            continue
        if from_same_source(candidate, source):
            continue
        current = get_memory(conn, candidate.id)
        if current is None or current.status != "active":
            continue
        changes.write(current, current.model_copy(update={"confirmed_at": now}))
        report.confirmed.append(current.id)
