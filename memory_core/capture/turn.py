"""What one finished agent turn leaves for learning: a user statement, a progress source, both or
neither, each decision recorded for `memevo learning`.

Both sources are captured in one transaction, the statement first, and returned in that
order: the hook nudges the worker in that order and the worker never takes a turn's
progress source while its user statement still waits (:mod:`memory_core.jobs.lifecycle`),
so what the user said is applied before what the tools showed.

Idempotency is per user message: a statement already captured in this agent session is not
captured again, and a progress source is identified by the request message and the linked
call ids, so an agent that re-sends its history adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory_core.capture.intake import capture_source, captured_texts, source_exists_for
from memory_core.capture.learning_log import excerpt
from memory_core.capture.work.progress import ProgressPlan, ProgressSkip, is_question, plan_progress
from memory_core.privacy.sanitize import sanitize_text

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from memory_core.capture.work.progress import OperationLike
    from memory_core.store.engines.dbapi import DbConn

STATEMENT, PROGRESS = "user_statement", "progress"


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Decision(tuple[str, str, str | None, tuple[str, ...], int, int, str | None]):
    """What capture decided for one kind of source in a turn."""

    __slots__ = ()

    def __new__(
        cls,
        source_type: str,
        reason: str,
        source_id: str | None = None,
        targets: tuple[str, ...] = (),
        observations: int = 0,
        omitted: int = 0,
        completion: str | None = None,
    ) -> Decision:
        return tuple.__new__(cls, (source_type, reason, source_id, targets, observations, omitted, completion))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def source_type(self) -> str:
        return self[0]

    @property
    def reason(self) -> str:  # "captured" or why not (see memory_core.capture.learning_log.REASONS)
        return self[1]

    @property
    def source_id(self) -> str | None:
        return self[2]

    @property
    def targets(self) -> tuple[str, ...]:
        return self[3]

    @property
    def observations(self) -> int:
        return self[4]

    @property
    def omitted(self) -> int:
        return self[5]

    @property
    def completion(self) -> str | None:
        return self[6]

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source_type": self.source_type, "reason": self.reason}
        if self.source_id:
            data["source_id"] = self.source_id
        if self.source_type == PROGRESS and self.reason == "captured":
            data.update(
                targets=list(self.targets),
                observations=self.observations,
                omitted=self.omitted,
                completion=self.completion,
            )
        return data


class TurnCapture(tuple[tuple[str, ...], tuple[Decision, ...], "dict[str, Any]"]):  # Any: a type only
    """The sources a turn created, in the order the worker should take them, and every decision."""

    __slots__ = ()

    def __new__(cls, created: tuple[str, ...], decisions: tuple[Decision, ...], log: dict[str, Any]) -> TurnCapture:
        return tuple.__new__(cls, (created, decisions, log))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def created(self) -> tuple[str, ...]:
        return self[0]

    @property
    def decisions(self) -> tuple[Decision, ...]:
        return self[1]

    @property
    def log(self) -> dict[str, Any]:  # the learning log's entry for the turn
        return self[2]


class TurnPlan(tuple[str, str | None, str, tuple[str, ...], tuple[str, ...], ProgressPlan | ProgressSkip]):
    """What a turn offers before the store is consulted."""

    __slots__ = ()

    def __new__(
        cls,
        agent: str,
        session_id: str | None,
        origin: str,
        messages: tuple[str, ...],
        statements: tuple[str, ...],
        progress: ProgressPlan | ProgressSkip,
    ) -> TurnPlan:
        return tuple.__new__(cls, (agent, session_id, origin, messages, statements, progress))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def agent(self) -> str:
        return self[0]

    @property
    def session_id(self) -> str | None:
        return self[1]

    @property
    def origin(self) -> str:
        return self[2]

    @property
    def messages(self) -> tuple[str, ...]:
        return self[3]

    @property
    def statements(self) -> tuple[str, ...]:
        return self[4]

    @property
    def progress(self) -> ProgressPlan | ProgressSkip:
        return self[5]

    @property
    def needs_store(self) -> bool:
        """Whether anything may be captured (else the decisions are known without the store)."""
        return bool(self.statements) or isinstance(self.progress, ProgressPlan)


def plan_turn(
    *,
    agent: str,
    session_id: str | None,
    origin: str,
    cwd: str,
    messages: Sequence[str],
    statements: Sequence[str],
    operations: Sequence[OperationLike],
    final_message: str | None,
    ended_in_error: bool,
    state_dir: Path | None,
) -> TurnPlan:
    """Read a finished turn. ``messages`` are the user's own messages of the turn without
    feedback messages; ``statements`` the ones the statement classifier kept."""
    progress = plan_progress(
        messages, operations, final_message=final_message, ended_in_error=ended_in_error, cwd=cwd, state_dir=state_dir
    )
    return TurnPlan(agent, session_id, origin, tuple(messages), tuple(statements), progress)


def capture_turn(conn: DbConn | None, plan: TurnPlan, now: float) -> TurnCapture:
    """Capture the turn's statement and progress sources (call inside a write transaction;
    ``conn`` may be ``None`` only when the plan does not need the store)."""
    if conn is None and plan.needs_store:
        raise ValueError("this turn needs the store")
    created: list[str] = []
    statement = _statement(conn, plan, now) if conn is not None else _no_statement(plan)
    if statement.reason == "captured" and statement.source_id:
        created.append(statement.source_id)
    if isinstance(plan.progress, ProgressPlan) and conn is not None:
        progress = _progress(conn, plan, plan.progress, now)
    else:
        progress = Decision(PROGRESS, plan.progress.reason if isinstance(plan.progress, ProgressSkip) else "")
    if progress.reason == "captured" and progress.source_id:
        created.append(progress.source_id)
    decisions = (statement, progress)
    last = next((m for m in reversed(plan.messages) if m.strip()), "")
    log = {
        "at": now,
        "agent": plan.agent,
        "session": (plan.session_id or "")[:64],
        "origin": plan.origin,
        "message": excerpt(last),
        "decisions": [d.as_dict() for d in decisions],
    }
    return TurnCapture(tuple(created), decisions, log)


def _no_statement(plan: TurnPlan) -> Decision:
    asked = any(m.strip() and is_question(m) for m in plan.messages)
    return Decision(STATEMENT, "question" if asked else "no_statement")


def _statement(conn: DbConn, plan: TurnPlan, now: float) -> Decision:
    if not plan.statements:
        return _no_statement(plan)
    earlier = captured_texts(conn, plan.agent, plan.session_id, STATEMENT)
    fresh = [s for s in plan.statements if (clean := sanitize_text(s)) and not any(clean in text for text in earlier)]
    if not fresh:
        return Decision(STATEMENT, "duplicate")
    result = capture_source(
        conn,
        source_type=STATEMENT,
        origin=plan.origin,
        text="\n\n".join(fresh),
        now=now,
        agent=plan.agent,
        session_id=plan.session_id,
    )
    return Decision(STATEMENT, "captured" if result.created else "duplicate", result.source_id)


def _progress(conn: DbConn, plan: TurnPlan, progress: ProgressPlan, now: float) -> Decision:
    existing = source_exists_for(conn, plan.agent, plan.session_id, PROGRESS, progress.identity)
    if existing is not None:
        return Decision(PROGRESS, "duplicate", existing)
    from memory_core.capture.work.progress_targets import nominate  # a turn without work never nominates
    from memory_core.capture.work.topic_carry import carried_topic, earlier_requests

    topics = progress.topics
    carried = carried_topic(progress.request, topics, earlier_requests(conn, plan.agent, plan.session_id))
    if carried is not None:  # "now push it": the previous request's topic, as recall carries it
        topics = (carried, *topics)
    nominated = nominate(conn, origin=plan.origin, topics=topics, resources=progress.resources)
    if not nominated:
        return Decision(PROGRESS, "no_target")
    targets = tuple(n.memory_id for n in nominated)
    result = capture_source(
        conn,
        source_type=PROGRESS,
        origin=plan.origin,
        text=progress.text,
        now=now,
        agent=plan.agent,
        session_id=plan.session_id,
        target_ids=targets,
        identity=progress.identity,
    )
    return Decision(
        PROGRESS,
        "captured" if result.created else "duplicate",
        result.source_id,
        targets,
        len(progress.observations),
        progress.omitted,
        progress.completion,
    )
