"""What each normalized hook event does. Hooks never call a model or wait for the worker."""

from __future__ import annotations

from cli.hooks.event import HookEvent
from cli.nudge import nudge_consolidate, nudge_recover
from memory_core.capture import canonical_origin, capture_source
from memory_core.config import Settings
from memory_core.cues import explicit_statements
from memory_core.errors import UsageError
from memory_core.store import Store


def handle_event(event: HookEvent, settings: Settings, now: float) -> str:
    """Carry out ``event``; returns text for the agent's context (often empty)."""
    if event.event == "session_start":
        nudge_recover()
        return ""
    if event.event == "compaction":
        if not event.summary or not event.summary.strip():
            raise UsageError("a compaction event needs a non-empty \"summary\"")
        _capture(event, settings, "summary", event.summary, now)
        return ""
    if event.event == "turn_end":
        statements = explicit_statements(list(event.user_messages))
        if statements:
            _capture(event, settings, "user_statement", "\n\n".join(statements), now)
        return ""
    if event.event == "user_prompt":
        return _recall(event, settings, now)
    return ""


def _capture(event: HookEvent, settings: Settings, source_type: str, text: str, now: float) -> None:
    with Store.open(settings.home) as store:
        with store.transaction() as conn:
            result = capture_source(
                conn, source_type=source_type, origin=canonical_origin(event.cwd), text=text,
                now=now, agent=event.agent, session_id=event.session_id,
            )
    if result.created:
        nudge_consolidate(result.source_id)


def _recall(event: HookEvent, settings: Settings, now: float) -> str:
    """Per-turn recall digest (read-only)."""
    texts = list(event.user_messages)
    if event.prompt:
        texts.append(event.prompt)
    if not texts or not settings.memory_db.exists():
        return ""
    try:
        from memory_core.recall.service import turn_recall, write_last_diagnostics
    except ImportError:
        return ""
    with Store.open_readonly(settings.home) as store:
        result = turn_recall(store.conn, texts, now=now, session_is_fresh=len(texts) <= 1)
    write_last_diagnostics(settings.home, result.diagnostics)
    return result.digest
