"""The page's buttons: each is the CLI's own control, in one transaction, with its event.

A failure raises the control's own error (nothing was changed: the transaction rolls
back) and the server shows its message on the page. Success returns the line the page
shows next.
"""

from __future__ import annotations

from collections.abc import Callable

from cli.ui.context import PageContext
from memory_core.controls import manual
from memory_core.controls.feedback import give_feedback
from memory_core.controls.review import approve, approve_all
from memory_core.controls.undo import undo
from memory_core.errors import NotFoundError, UsageError
from memory_core.store.schema.owners import owns_source

Form = dict[str, str]
MANUAL: dict[str, Callable[..., manual.ManualResult]] = {
    "forget": manual.forget,
    "pin": manual.pin,
    "unpin": manual.unpin,
    "resolve": manual.resolve,
}
EVENT_ID_MAX_DIGITS = 18


def _number(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > EVENT_ID_MAX_DIGITS:
        raise NotFoundError(f"{text[:40]!r} is not {what}")
    return int(text)


def memory_action(ctx: PageContext, memory_id: str, verb: str, form: Form) -> str:
    """forget, pin, unpin, resolve, correct or feedback on one memory."""
    with ctx.store() as store, store.transaction() as conn:
        if verb in MANUAL:
            result = MANUAL[verb](conn, memory_id, ctx.now)
        elif verb == "correct":
            result = manual.correct(conn, memory_id, form.get("text", ""), ctx.now)
        elif verb == "feedback":
            given = give_feedback(conn, memory_id, form.get("verdict", ""), ctx.now)
            if given.event_id is None:
                return f"feedback {given.verdict}: {given.outcome}, nothing changes"
            return f"feedback {given.verdict} recorded as event {given.event_id}"
        else:
            raise NotFoundError(f"no action {verb!r}")
    if result.event_id is None:
        return f"{verb}: nothing to change"
    return f"{verb}: done, recorded as event {result.event_id} (Undo it from the history)"


def undo_action(ctx: PageContext, form: Form) -> str:
    number = _number(form.get("event", ""), "an event id")
    with ctx.store() as store, store.transaction() as conn:
        undo_id = undo(conn, number, ctx.now)
    return f"undid event {number} (recorded as event {undo_id})"


def approve_action(ctx: PageContext, form: Form) -> str:
    item = form.get("item", "")
    if not item:
        raise UsageError("no item named to approve")
    with ctx.store() as store, store.transaction() as conn:
        keys = approve(conn, [item], ctx.now)
    return f"approved {len(keys)} change(s)"


def approve_all_action(ctx: PageContext, form: Form) -> str:
    through = _number(form.get("through", ""), "a review watermark")
    with ctx.store() as store, store.transaction() as conn:
        done = approve_all(conn, through, ctx.now)
    return f"approved everything through learning event {done['reviewed_through']}"


def evolve_action(ctx: PageContext, form: Form) -> str:
    """`memevo evolve --source ID`: one forced attempt, overriding the retry delay and a pause."""
    from cli.forced_attempt import queue_forced
    from memory_core.errors import ConfigError
    from memory_core.ids import is_memory_id
    from memory_core.jobs.forced import pick_forced_source

    source_id = form.get("source", "")
    if not is_memory_id(source_id):
        raise NotFoundError("no such source")
    cfg = ctx.settings
    if not cfg.model_configured:
        raise ConfigError(f"no model configured, so no attempt can run: {cfg.model_setup_hint()}; nothing was queued")
    with ctx.store() as store:
        # Another member's source is as absent as no source: only their own worker runs it.
        if not owns_source(store.conn, source_id):
            raise NotFoundError(f"no source with id {source_id}; see the Queue page")
        chosen = pick_forced_source(store.conn, source_id)
    if chosen is None:
        raise UsageError("that source is not pending or paused; nothing to evolve")
    _, reused = queue_forced(ctx.store, chosen, cfg, ctx.now)
    if reused:
        return "an attempt for that source is already queued or running"
    return f"queued an attempt for source {chosen} (see Queue)"
