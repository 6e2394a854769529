"""One event of a saved session captured as its live hook captures it (cli.hooks.dispatch):
the same functions, the same dedupe keys; or, for a dry run, the sources it would make."""

from __future__ import annotations

from pathlib import Path

from cli.hooks.event import HookEvent
from memory_core.capture.cues import explicit_statements
from memory_core.capture.feedback_syntax import parse_feedback_message
from memory_core.capture.intake import adopt_project_paths, capture_project, capture_source, dedupe_key
from memory_core.capture.turn import TurnPlan, capture_turn, plan_turn
from memory_core.capture.work.progress import ProgressPlan
from memory_core.ids import source_id as make_source_id
from memory_core.privacy.sanitize import sanitize_text
from memory_core.store.engines.dbapi import DbConn


def _plan(home: Path, event: HookEvent, origin: str) -> TurnPlan:
    # Feedback messages answered a digest of their day: not replayed, not learned as statements.
    messages = [m for m in event.user_messages if not parse_feedback_message(m)]
    return plan_turn(
        agent=event.agent,
        session_id=event.session_id,
        origin=origin,
        cwd=event.cwd,
        messages=messages,
        statements=explicit_statements(messages) if messages else [],
        operations=event.operations,
        final_message=event.final_message,
        ended_in_error=event.ended_in_error,
        state_dir=home,
    )


def capture_event(conn: DbConn, home: Path, event: HookEvent, at: float, origin: str) -> list[tuple[str, str]]:
    """Capture ``event`` (a compaction or a turn end) at the time ``at`` in ``conn``'s write
    transaction; the ``(source_type, source_id)`` of each source it created."""
    adopt_project_paths(conn, capture_project(event.cwd, home))
    if event.event == "compaction":
        if not event.summary:
            return []
        result = capture_source(
            conn,
            source_type="summary",
            origin=origin,
            text=event.summary,
            now=at,
            agent=event.agent,
            session_id=event.session_id,
        )
        return [("summary", result.source_id)] if result.created else []
    if event.event != "turn_end":
        return []
    plan = _plan(home, event, origin)
    if not plan.messages:
        return []
    captured = capture_turn(conn, plan, at)
    return [(d.source_type, d.source_id) for d in captured.decisions if d.reason == "captured" and d.source_id]


def planned_sources(conn: DbConn | None, home: Path, event: HookEvent, origin: str) -> list[tuple[str, str]]:
    """The sources ``event`` would make, read-only: ``(source_type, source_id)``. ``conn`` is
    the store as it is (``None``: there is none yet, so no project state a progress source
    could update); what earlier sources of the same run would add to it is not foreseen."""
    if event.event == "compaction":
        clean = sanitize_text(event.summary or "")
        if not clean:
            return []
        return [("summary", make_source_id(dedupe_key(event.agent, event.session_id, "summary", clean)))]
    if event.event != "turn_end":
        return []
    plan = _plan(home, event, origin)
    planned: list[tuple[str, str]] = []
    if plan.statements:
        clean = sanitize_text("\n\n".join(plan.statements))
        if clean:
            key = dedupe_key(event.agent, event.session_id, "user_statement", clean)
            planned.append(("user_statement", make_source_id(key)))
    if isinstance(plan.progress, ProgressPlan) and conn is not None and _names_a_target(conn, plan, plan.progress):
        key = dedupe_key(event.agent, event.session_id, "progress", "", plan.progress.identity)
        planned.append(("progress", make_source_id(key)))
    return planned


def _names_a_target(conn: DbConn, plan: TurnPlan, progress: ProgressPlan) -> bool:
    """Whether capture would find a project state for the progress source to update (the
    reading half of memory_core.capture.turn's progress capture; a store without claims has none)."""
    from memory_core.capture.work.progress_targets import nominate
    from memory_core.capture.work.topic_carry import carried_topic, earlier_requests

    topics = progress.topics
    carried = carried_topic(progress.request, topics, earlier_requests(conn, plan.agent, plan.session_id))
    if carried is not None:
        topics = (carried, *topics)
    return bool(nominate(conn, origin=plan.origin, topics=topics, resources=progress.resources))
