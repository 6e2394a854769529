"""`memevo feedback ID VERDICT`: a person's verdict on one memory."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, open_store
from memory_core import clock
from memory_core.controls.feedback import VERDICTS, give_feedback
from memory_core.reports.inspection import memory_summary

_OUTCOME_TEXT = {
    "applied": "recorded",
    "repeated": "same verdict as before: nothing changes",
    "replayed": "this feedback was already received",
    "outdated": "older than what is already known: nothing changes",
}


def _render(data: dict[str, Any]) -> str:
    line = f"feedback {data['verdict']} on {data['memory_id']}: {_OUTCOME_TEXT[data['outcome']]}"
    if data["event_id"] is not None:
        line += f" (event {data['event_id']}; `memevo undo {data['event_id']}` reverts it)"
    for memory in data["memories"]:
        if memory["status"] == "conflicted":
            line += f"\n  {memory['id']} quarantined as conflicted (`memevo resolve` or `memevo correct`)"
    return line


@click.command("feedback")
@click.argument("memory_id")
@click.argument("verdict", type=click.Choice(VERDICTS))
@json_option
def feedback_command(memory_id: str, verdict: str, as_json: bool) -> None:
    """Tell memevo a memory is useful, unhelpful, accurate or incorrect.

    useful/unhelpful nudge its ranking a little; accurate protects it from weaker automatic
    replacement; incorrect quarantines it (and its exact duplicates in its origin).
    """
    with open_store() as store, store.transaction() as conn:
        result = give_feedback(conn, memory_id, verdict, clock.now())
    emit(
        {
            "memory_id": result.memory_id,
            "verdict": result.verdict,
            "outcome": result.outcome,
            "event_id": result.event_id,
            "memories": [memory_summary(m) for m in result.after],
            "retired_sources": result.retired_sources,
        },
        as_json,
        _render,
    )


COMMANDS = [feedback_command]
