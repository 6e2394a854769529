"""What each normalized hook event does. Hooks never call a model or wait for the worker.

Only the capture events load the settings, records and queue; the per-turn recall path
stays on the standard library so it is cheap on every user message.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cli.hooks.event import HookEvent
from memory_core.errors import MemevoError, UsageError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from memory_core.store.engines.dbapi import DbConn

Handler = Callable[[HookEvent, Path, float], str]

# The agents whose session-start hook output reaches the model, as observed with their real
# CLIs (docs/hooks.md, "The standing digest"): Claude Code and Codex. Gemini CLI prepends
# SessionStart context to the first prompt and then drops that prompt when a session is
# resumed, Pi ignores what a session_start handler returns, and a generic integration
# prints recall on user_prompt: those get the standing digest on their first user turn.
STANDING_AT_SESSION_START = frozenset({"claude-code", "codex"})
# A session start handled later than this after it happened (delivered from the gateway's spool,
# docs/hooks.md) has no agent waiting for its output: it gives, and records, no standing digest.
ANSWER_SECONDS = 6.0


def handle_event(event: HookEvent, home: Path, now: float) -> str:
    """Carry out ``event`` for the state dir ``home``; returns text for the agent's context."""
    return HANDLERS[event.event](event, home, now)


def _session_start(event: HookEvent, home: Path, now: float) -> str:
    from cli.nudge import nudge_recover

    nudge_recover()
    if event.agent not in STANDING_AT_SESSION_START:
        return ""
    from memory_core import clock

    if clock.now() - now > ANSWER_SECONDS:
        return ""
    from memory_core.recall.standing_setting import standing_bytes

    if standing_bytes(home) <= 0 or not event.cwd:
        return ""
    from memory_core.store.engines.database import Store

    opened = Store.open_existing_readonly(home)  # not recall's service: no query engine to load
    if opened is None:
        return ""
    with opened as store:
        return _standing(event, home, store.conn, now)[0]


def _standing(event: HookEvent, home: Path, conn: DbConn, now: float) -> tuple[str, tuple[str, ...] | None]:
    """The session's standing digest and the claims it gives (``None``: turned off), recorded
    for the session (so its per-turn digests leave them out) and in the injection log."""
    from memory_core.recall.standing_setting import standing_bytes

    bound = standing_bytes(home)
    if bound <= 0 or not event.cwd:
        return "", None
    from memory_core.reports.standing_view import standing_for

    result = standing_for(conn, home, event.cwd, now, max_bytes=bound)
    if event.session_id:
        from cli.hooks.session_stash import write_standing

        write_standing(home, event.session_id, result.shown, now)
    _note_stale(home, event.cwd, [d for d in result.decisions if d.get("verdict") == "stale"], now)
    if result.digest:
        from memory_core.reports.injection_log import record_injection

        record_injection(
            home,
            kind="standing",
            at=now,
            agent=event.agent,
            session_id=event.session_id,
            project=result.project,
            claim_ids=result.shown,
            size_bytes=len(result.digest.encode("utf-8")),
            via="hook",
        )
    return result.digest, tuple(result.shown)


def _compaction(event: HookEvent, home: Path, now: float) -> str:
    from memory_core.privacy.sanitize import strip_controls

    # Judged as capture will store it: a summary of control characters alone is empty.
    if not event.summary or not strip_controls(event.summary).strip():
        raise UsageError('a compaction event needs a non-empty "summary"')
    _capture(event, home, "summary", event.summary, now)
    return ""


def _turn_end(event: HookEvent, home: Path, now: float) -> str:
    from memory_core.capture.cues import explicit_statements
    from memory_core.capture.feedback_syntax import parse_feedback_message

    verdicts: list[tuple[str, tuple[str, str]]] = []
    messages: list[str] = []
    for text in event.user_messages:
        parsed = parse_feedback_message(text)
        if parsed:
            verdicts.append((text, parsed))
        else:
            messages.append(text)
    problem: UsageError | None = None
    if verdicts:
        try:
            _feedback(event, home, verdicts, now)
        except UsageError as exc:  # reported after the rest of the turn is captured
            problem = exc
    if messages:
        _capture_turn(event, home, messages, explicit_statements(messages), now)
    if problem is not None:
        raise problem
    return ""


def _capture_turn(event: HookEvent, home: Path, messages: list[str], statements: list[str], now: float) -> None:
    """The turn's user statement and progress sources, statement first, and the learning log."""
    from memory_core.capture.intake import adopt_project_paths, capture_project
    from memory_core.capture.learning_log import append_entry
    from memory_core.capture.turn import capture_turn, plan_turn

    project = capture_project(event.cwd, home)
    plan = plan_turn(
        agent=event.agent,
        session_id=event.session_id,
        origin=project.origin,
        cwd=event.cwd,
        messages=messages,
        statements=statements,
        operations=event.operations,
        final_message=event.final_message,
        ended_in_error=event.ended_in_error,
        state_dir=home,
    )
    nudged: frozenset[str] = frozenset()
    if plan.needs_store:
        from cli.nudge import nudge_captured_in
        from memory_core.store.engines.database import Store

        with Store.open(home, rebuild_index=False) as store:
            with store.transaction() as conn:
                adopt_project_paths(conn, project)
                captured = capture_turn(conn, plan, now)
                nudged = nudge_captured_in(conn, captured.created, now)
    else:
        captured = capture_turn(None, plan, now)
    if event.notes:  # what the adapter left out of the turn, and why
        captured.log["reading"] = list(event.notes)
    append_entry(home, captured.log)
    if captured.created:
        from cli.nudge import nudge_captured

        nudge_captured(captured.created, nudged)  # in order: the statement before the progress source


def _user_prompt(event: HookEvent, home: Path, now: float) -> str:
    """Per-turn recall digest (read-only)."""
    texts = list(event.user_messages)
    if event.prompt:
        texts.append(event.prompt)
    if not texts:
        return ""
    from cli.hooks.session_stash import read_standing
    from memory_core.recall.service import open_recall_store, record_failed_recall, turn_recall, write_last_diagnostics

    given = read_standing(home, event.session_id) if event.session_id else None
    standing = ""
    # A failed attempt replaces the last diagnostics too: `memevo explain` shows this turn.
    try:
        opened = open_recall_store(home)
        if opened is None:
            record_failed_recall(home, "no_store", now=now)
            return ""
        with opened as store:
            if given is None and event.agent not in STANDING_AT_SESSION_START and (event.session_id or len(texts) <= 1):
                standing, given = _standing(event, home, store.conn, now)  # the session's first turn
            from memory_core.recall.checkout_check import checkout_check_for

            result = turn_recall(
                store.conn,
                texts,
                now=now,
                session_is_fresh=len(texts) <= 1,
                exclude=frozenset(given or ()),
                stale=checkout_check_for(store.conn, event.cwd, home),
            )
            if result.claims:
                from memory_core.reports.review_gate import gate_enabled, hold_unreviewed

                if gate_enabled(home):
                    result = hold_unreviewed(store.conn, result)
    except Exception as exc:
        record_failed_recall(home, "store_error", now=now, error=exc)
        raise
    write_last_diagnostics(home, result.diagnostics)
    _note_stale(home, event.cwd, result.diagnostics.get("stale") or [], now)
    if result.digest:
        from memory_core.reports.injection_log import project_of, record_injection

        shown = result.claims[: result.diagnostics.get("digest", {}).get("claims", len(result.claims))]
        record_injection(
            home,
            kind="digest",
            at=now,
            agent=event.agent,
            session_id=event.session_id,
            project=project_of(event.cwd, home),
            claim_ids=[c.memory_id for c in shown],
            size_bytes=len(result.digest.encode("utf-8")),
            via="hook",
        )
    return "\n".join(part for part in (standing, result.digest) if part)


def _note_stale(home: Path, cwd: str, items: list[dict[str, Any]], now: float) -> None:
    """Note the claims found stale with their checkout, for the worker to offer for retiring."""
    if not items:
        return
    from memory_core.recall.checkout_check import CheckoutView
    from memory_core.recall.stale_record import remember_stale

    view = CheckoutView.of(cwd)
    if view is not None:
        found = [(str(i["id"]), str(i["origin"]), [str(m) for m in i["missing"]]) for i in items]
        remember_stale(home, found, view.root, now)


def _session_end(event: HookEvent, home: Path, now: float) -> str:
    return ""


HANDLERS: dict[str, Handler] = {
    "session_start": _session_start,
    "compaction": _compaction,
    "turn_end": _turn_end,
    "user_prompt": _user_prompt,
    "session_end": _session_end,
}


def _capture(event: HookEvent, home: Path, source_type: str, text: str, now: float) -> None:
    from cli.nudge import nudge_captured, nudge_captured_in
    from memory_core.capture.intake import adopt_project_paths, capture_project, capture_source
    from memory_core.store.engines.database import Store

    project = capture_project(event.cwd, home)
    # Only the state dir matters here; worker settings are checked by the worker and status.
    with Store.open(home, rebuild_index=False) as store:
        with store.transaction() as conn:
            adopt_project_paths(conn, project)
            result = capture_source(
                conn,
                source_type=source_type,
                origin=project.origin,
                text=text,
                now=now,
                agent=event.agent,
                session_id=event.session_id,
            )
            created = [result.source_id] if result.created else []
            nudged = nudge_captured_in(conn, created, now)
    nudge_captured(created, nudged)


def _feedback(event: HookEvent, home: Path, verdicts: list[tuple[str, tuple[str, str]]], now: float) -> None:
    """Apply feedback messages; the receipt key makes a re-sent turn a no-op."""
    from memory_core.controls.feedback import chat_receipt_id, give_feedback
    from memory_core.store.engines.database import Store

    problems = []
    with Store.open(home, rebuild_index=False) as store:
        for text, (memory_id, verdict) in verdicts:
            source_id = chat_receipt_id(event.agent, event.session_id, text)
            try:
                with store.transaction() as conn:
                    give_feedback(conn, memory_id, verdict, now, source_id=source_id)
            except MemevoError as exc:
                problems.append(str(exc))
    if problems:
        raise UsageError("feedback not applied: " + "; ".join(problems))
