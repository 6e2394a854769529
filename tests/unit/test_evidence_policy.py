"""The evidence policy: labels, priorities and the replacement decision table."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory_core.evidence import (
    Decision,
    evidence_for,
    evidence_priority,
    manual_evidence,
    replacement_decision,
    source_priority,
)
from memory_core.records import Evidence, Feedback, Memory, VerdictSlot
from tests.factories import make_memory

T0 = 1_700_000_000.0
ORIGIN = "/work/app"

# Evidence bases by name; each pairs with a kind for which that basis is appropriate.
BASES = {
    "unknown": None,
    "summary": ("summary", "local"),
    "user": ("user_statement", "model"),
    "tool": ("tool_observation", "model"),
    "manual": ("manual_correction", "manual"),
}


def ev(name: str, at: float = T0) -> Evidence | None:
    basis = BASES[name]
    if basis is None:
        return None
    return Evidence(basis=basis[0], method=basis[1], source_id="e" * 24, at=at)


def target(kind: str, evidence: str, *, accurate: bool = False, **extra: object) -> Memory:
    feedback = Feedback(accuracy=VerdictSlot(verdict="accurate", source_id="f" * 24, at=T0)) if accurate else Feedback()
    return make_memory(
        "The deploy target is staging", kind=kind, at=T0, evidence=ev(evidence), feedback=feedback, **extra
    )


@dataclass(frozen=True)
class Row:
    name: str
    kind: str
    old: str
    new: str
    expected: Decision
    accurate: bool = False
    current_user: bool = False
    fresh_progress: bool = False


# One row per (old priority, new priority) pair. New evidence is always host-assigned, so it
# is never unknown; the kind is chosen so both sides are appropriate evidence for it.
PRIORITY_PAIRS = [
    Row("0<-1 summary over unknown", "fact", "unknown", "summary", Decision.ALLOW),
    Row("0<-2 user fact over unknown", "fact", "unknown", "user", Decision.ALLOW),
    Row("0<-3 user preference over unknown", "preference", "unknown", "user", Decision.ALLOW),
    Row("0<-4 manual over unknown", "fact", "unknown", "manual", Decision.ALLOW),
    Row("1<-1 summary over summary", "fact", "summary", "summary", Decision.ALLOW),
    Row("1<-2 user fact over summary", "fact", "summary", "user", Decision.ALLOW),
    Row("1<-3 tool over summary", "project_state", "summary", "tool", Decision.ALLOW),
    Row("1<-4 manual over summary", "decision", "summary", "manual", Decision.ALLOW),
    Row("2<-1 summary under user fact", "fact", "user", "summary", Decision.WITHHOLD_WEAKER),
    Row("2<-2 user fact over user fact", "fact", "user", "user", Decision.ALLOW),
    Row("2<-3 tool over user project state", "project_state", "user", "tool", Decision.ALLOW),
    Row("2<-4 manual over user fact", "fact", "user", "manual", Decision.ALLOW),
    Row("3<-1 summary under user preference", "preference", "user", "summary", Decision.WITHHOLD_WEAKER),
    Row("3<-2 user project state under tool", "project_state", "tool", "user", Decision.WITHHOLD_WEAKER),
    Row("3<-3 user decision over user decision", "decision", "user", "user", Decision.ALLOW),
    Row("3<-4 manual over tool", "project_state", "tool", "manual", Decision.ALLOW),
    Row("4<-1 summary under manual", "fact", "manual", "summary", Decision.WITHHOLD_WEAKER),
    Row("4<-2 user fact under manual", "fact", "manual", "user", Decision.WITHHOLD_WEAKER),
    Row("4<-3 user preference under manual", "preference", "manual", "user", Decision.WITHHOLD_WEAKER),
    Row("4<-4 manual over manual", "fact", "manual", "manual", Decision.ALLOW),
    Row("accurate(4)<-1 summary under accurate", "fact", "summary", "summary", Decision.WITHHOLD_WEAKER, accurate=True),
    Row(
        "accurate(4)<-3 tool under accurate",
        "project_state",
        "summary",
        "tool",
        Decision.WITHHOLD_WEAKER,
        accurate=True,
    ),
    Row("accurate(4)<-4 manual over accurate", "fact", "summary", "manual", Decision.ALLOW, accurate=True),
]

EXCEPTIONS = [
    Row(
        "current user supersedes a tool observation (3)",
        "project_state",
        "tool",
        "user",
        Decision.ALLOW,
        current_user=True,
    ),
    Row(
        "current user supersedes earlier user preference",
        "preference",
        "user",
        "user",
        Decision.ALLOW,
        current_user=True,
    ),
    Row(
        "current user cannot supersede manual correction",
        "fact",
        "manual",
        "user",
        Decision.WITHHOLD_WEAKER,
        current_user=True,
    ),
    Row(
        "current user cannot supersede accurate",
        "project_state",
        "summary",
        "user",
        Decision.WITHHOLD_WEAKER,
        accurate=True,
        current_user=True,
    ),
    Row(
        "current-user flag means nothing for a summary",
        "fact",
        "user",
        "summary",
        Decision.WITHHOLD_WEAKER,
        current_user=True,
    ),
    Row(
        "fresh progress updates a manually corrected state",
        "project_state",
        "manual",
        "tool",
        Decision.ALLOW,
        fresh_progress=True,
    ),
    Row(
        "fresh progress updates an accurate state",
        "project_state",
        "user",
        "tool",
        Decision.ALLOW,
        accurate=True,
        fresh_progress=True,
    ),
    Row(
        "stale-linked progress stays withheld under manual", "project_state", "manual", "tool", Decision.WITHHOLD_WEAKER
    ),
    Row(
        "fresh-progress flag means nothing for a user statement",
        "project_state",
        "manual",
        "user",
        Decision.WITHHOLD_WEAKER,
        fresh_progress=True,
    ),
]


@pytest.mark.parametrize("row", PRIORITY_PAIRS + EXCEPTIONS, ids=lambda r: r.name)
def test_priority_table(row: Row) -> None:
    old = target(row.kind, row.old, accurate=row.accurate)
    new = ev(row.new, T0 + 60)
    assert new is not None
    decision = replacement_decision(
        old,
        new,
        row.kind,
        T0 + 60,
        source_origin=ORIGIN,
        is_current_user_statement=row.current_user,
        is_fresh_progress_observation=row.fresh_progress,
    )
    assert decision is row.expected
    assert not decision.rejected


@dataclass(frozen=True)
class Guard:
    name: str
    target: Memory
    new_kind: str
    source_at: float
    origin: str
    expected: Decision


def _guards() -> list[Guard]:
    weak = target("project_state", "summary")
    return [
        Guard(
            "pinned", target("project_state", "summary", pinned=True), "project_state", T0 + 1, ORIGIN, Decision.PINNED
        ),
        Guard("stale source", weak, "project_state", T0 - 1, ORIGIN, Decision.STALE),
        Guard("kind change", weak, "fact", T0 + 1, ORIGIN, Decision.KIND_CHANGE),
        Guard("cross origin", weak, "project_state", T0 + 1, "/work/other", Decision.CROSS_ORIGIN),
        Guard(
            "conflicted target",
            target("project_state", "summary", status="conflicted"),
            "project_state",
            T0 + 1,
            ORIGIN,
            Decision.NOT_ACTIVE,
        ),
        Guard(
            "forgotten target",
            target("project_state", "summary", status="forgotten"),
            "project_state",
            T0 + 1,
            ORIGIN,
            Decision.NOT_ACTIVE,
        ),
        Guard(
            "superseded target",
            target("project_state", "summary", status="superseded"),
            "project_state",
            T0 + 1,
            ORIGIN,
            Decision.NOT_ACTIVE,
        ),
    ]


@pytest.mark.parametrize("guard", _guards(), ids=lambda g: g.name)
@pytest.mark.parametrize(
    "basis,flags",
    [
        ("manual", {}),
        ("tool", {"is_fresh_progress_observation": True}),
        ("user", {"is_current_user_statement": True}),
    ],
    ids=["manual", "fresh-progress", "current-user"],
)
def test_guards_beat_every_exception(guard: Guard, basis: str, flags: dict[str, bool]) -> None:
    """Even the strongest evidence and both exceptions stop at every guard."""
    new = ev(basis, guard.source_at)
    assert new is not None
    decision = replacement_decision(
        guard.target, new, guard.new_kind, guard.source_at, source_origin=guard.origin, **flags
    )
    assert decision is guard.expected
    assert decision.rejected


def test_source_at_target_update_time_is_not_stale() -> None:
    old = target("fact", "summary")
    assert (
        replacement_decision(
            old,
            ev("summary"),
            "fact",
            old.updated_at,  # type: ignore[arg-type]
            source_origin=ORIGIN,
        )
        is Decision.ALLOW
    )


def test_confirmation_adds_no_authority() -> None:
    confirmed = target("fact", "summary", confirmed_at=T0 + 100)
    assert source_priority(confirmed) == 1


@pytest.mark.parametrize(
    "basis,kind,priority",
    [
        ("unknown", "fact", 0),
        ("summary", "decision", 1),
        ("user", "fact", 2),
        ("user", "project_state", 2),
        ("user", "preference", 3),
        ("user", "decision", 3),
        ("tool", "project_state", 3),
        ("tool", "fact", 0),
        ("manual", "preference", 4),
    ],
)
def test_evidence_priority(basis: str, kind: str, priority: int) -> None:
    assert evidence_priority(ev(basis), kind) == priority


@pytest.mark.parametrize(
    "source_type,method,basis,label_method",
    [
        ("summary", "local", "summary", "local"),
        ("summary", "model", "summary", "model"),
        ("user_statement", "model", "user_statement", "model"),
        ("progress", "model", "tool_observation", "model"),
    ],
)
def test_evidence_for(source_type: str, method: str, basis: str, label_method: str) -> None:
    evidence = evidence_for(source_type, method, "a" * 24, T0)
    assert (evidence.basis, evidence.method, evidence.source_id, evidence.at) == (basis, label_method, "a" * 24, T0)


@pytest.mark.parametrize(
    "source_type,method",
    [
        ("user_statement", "local"),
        ("progress", "local"),
        ("summary", "manual"),
        ("chat", "model"),
    ],
)
def test_evidence_for_refuses_impossible_labels(source_type: str, method: str) -> None:
    with pytest.raises(ValueError):
        evidence_for(source_type, method, "a" * 24, T0)


def test_manual_evidence() -> None:
    evidence = manual_evidence("b" * 24, T0)
    assert (evidence.basis, evidence.method) == ("manual_correction", "manual")
    assert source_priority(make_memory(evidence=evidence)) == 4
