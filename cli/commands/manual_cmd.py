"""`memevo forget|correct|pin|unpin|resolve|undo`: a person's controls over exact ids."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from cli.context import emit, json_option, open_store
from memory_core import clock
from memory_core.controls import manual
from memory_core.controls.undo import undo
from memory_core.errors import NotFoundError
from memory_core.reports.inspection import memory_summary

# Event ids are SQLite integers (64-bit); a longer number cannot name one.
_EVENT_ID_MAX_DIGITS = 18


def _result_data(action: str, result: manual.ManualResult) -> dict[str, Any]:
    return {
        "action": action,
        "event_id": result.event_id,
        "changed": result.event_id is not None,
        "memories": [memory_summary(m) for m in result.after],
        "retired_sources": result.retired_sources,
    }


def _render_result(data: dict[str, Any]) -> str:
    if not data["changed"]:
        return f"{data['action']}: nothing to change"
    lines = [f"{data['action']}: event {data['event_id']} (`memevo undo {data['event_id']}` reverts it)"]
    lines += [f"  {m['id']}  {m['status']}{' pinned' if m['pinned'] else ''}" for m in data["memories"]]
    if data["retired_sources"]:
        lines.append(f"  retired {len(data['retired_sources'])} queued sources that repeat it")
    return "\n".join(lines)


def _run(action: str, call: Callable[..., manual.ManualResult], *args: Any, as_json: bool) -> None:
    with open_store() as store, store.transaction() as conn:
        result = call(conn, *args, clock.now())
    emit(_result_data(action, result), as_json, _render_result)


@click.command("forget")
@click.argument("memory_id")
@json_option
def forget_command(memory_id: str, as_json: bool) -> None:
    """Forget a memory and its exact duplicates in the same origin (kept as tombstones)."""
    _run("forget", manual.forget, memory_id, as_json=as_json)


@click.command("correct")
@click.argument("memory_id")
@click.argument("text")
@json_option
def correct_command(memory_id: str, text: str, as_json: bool) -> None:
    """Replace a memory's content with TEXT, as a manual correction (aliases and feedback reset)."""
    _run("correct", manual.correct, memory_id, text, as_json=as_json)


@click.command("pin")
@click.argument("memory_id")
@json_option
def pin_command(memory_id: str, as_json: bool) -> None:
    """Pin a memory: automatic learning cannot replace it and it does not age."""
    _run("pin", manual.pin, memory_id, as_json=as_json)


@click.command("unpin")
@click.argument("memory_id")
@json_option
def unpin_command(memory_id: str, as_json: bool) -> None:
    """Remove a memory's pin."""
    _run("unpin", manual.unpin, memory_id, as_json=as_json)


@click.command("resolve")
@click.argument("memory_id")
@json_option
def resolve_command(memory_id: str, as_json: bool) -> None:
    """Return a conflicted memory to active, keeping its evidence date."""
    _run("resolve", manual.resolve, memory_id, as_json=as_json)


def _event_number(text: str) -> int:
    """The event id ``text`` names: ASCII digits only, never wider than SQLite stores."""
    if not (text.isascii() and text.isdigit()):
        raise NotFoundError(f"{text!r} is not an event id (a number); see `memevo history`")
    if len(text.lstrip("0")) > _EVENT_ID_MAX_DIGITS:
        raise NotFoundError(f"no event with id {text}; see `memevo history`")
    return int(text)


@click.command("undo")
@click.argument("event_id")
@json_option
def undo_command(event_id: str, as_json: bool) -> None:
    """Revert one event, if the memories it changed are still as it left them."""
    number = _event_number(event_id)
    with open_store() as store, store.transaction() as conn:
        undo_id = undo(conn, number, clock.now())
    emit(
        {"undone_event": number, "event_id": undo_id},
        as_json,
        lambda d: f"undid event {d['undone_event']} (recorded as event {d['event_id']})",
    )


COMMANDS = [forget_command, correct_command, pin_command, unpin_command, resolve_command, undo_command]
