"""What each normalized hook event does. Hooks never call a model or wait for the worker.

Only the capture events load the settings, records and queue; the per-turn recall path
stays on the standard library so it is cheap on every user message.
"""

from __future__ import annotations

from pathlib import Path

from cli.hooks.event import HookEvent
from memory_core.errors import UsageError


def handle_event(event: HookEvent, home: Path, now: float) -> str:
    """Carry out ``event`` for the state dir ``home``; returns text for the agent's context."""
    if event.event == "session_start":
        from cli.nudge import nudge_recover

        nudge_recover()
        return ""
    if event.event == "compaction":
        if not event.summary or not event.summary.strip():
            raise UsageError('a compaction event needs a non-empty "summary"')
        _capture(event, home, "summary", event.summary, now)
        return ""
    if event.event == "turn_end":
        from memory_core.cues import explicit_statements

        statements = explicit_statements(list(event.user_messages))
        if statements:
            _capture(event, home, "user_statement", "\n\n".join(statements), now)
        return ""
    if event.event == "user_prompt":
        return _recall(event, home, now)
    return ""


def _capture(event: HookEvent, home: Path, source_type: str, text: str, now: float) -> None:
    from cli.nudge import nudge_consolidate
    from memory_core.capture import canonical_origin, capture_source
    from memory_core.config import load_settings
    from memory_core.store import Store

    load_settings()  # a broken configuration is reported before anything is written
    with Store.open(home) as store:
        with store.transaction() as conn:
            result = capture_source(
                conn, source_type=source_type, origin=canonical_origin(event.cwd), text=text,
                now=now, agent=event.agent, session_id=event.session_id,
            )
    if result.created:
        nudge_consolidate(result.source_id)


def _recall(event: HookEvent, home: Path, now: float) -> str:
    """Per-turn recall digest (read-only)."""
    texts = list(event.user_messages)
    if event.prompt:
        texts.append(event.prompt)
    if not texts or not (home / "memory.db").exists():
        return ""
    try:
        from memory_core.recall.service import turn_recall, write_last_diagnostics
    except ImportError:
        return ""
    from memory_core.store import Store

    with Store.open_readonly(home) as store:
        result = turn_recall(store.conn, texts, now=now, session_is_fresh=len(texts) <= 1)
    write_last_diagnostics(home, result.diagnostics)
    return result.digest
