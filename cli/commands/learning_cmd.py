"""`memevo learning`: what the last turns' capture decided, and why."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, settings
from cli.model_use import MODEL_CALL, render_model_call
from memory_core.capture.learning_log import REASONS, read_entries
from memory_core.clock import is_timestamp, iso

LABELS = {"user_statement": "statement", "progress": "progress"}


def _decision_line(decision: dict[str, Any]) -> str:
    label = LABELS.get(str(decision.get("source_type")), str(decision.get("source_type")))
    reason = str(decision.get("reason"))
    if reason == "captured":
        text = f"captured as source {decision.get('source_id')}"
        if decision.get("source_type") == "progress":
            targets = decision.get("targets") or []
            text += (
                f" ({decision.get('observations', 0)} observations, {decision.get('omitted', 0)} omitted, "
                f"{decision.get('completion')}; targets {', '.join(map(str, targets)) or 'none'})"
            )
        return f"  {label:<10} {text}"
    detail = REASONS.get(reason, reason)
    suffix = f" (source {decision['source_id']})" if decision.get("source_id") else ""
    return f"  {label:<10} skipped: {detail}{suffix}"


def render_learning(report: dict[str, Any]) -> str:
    entries = report["turns"]
    if not entries:
        return "no turns logged yet (the learning log fills as agent turns end)"
    lines: list[str] = []
    for entry in entries:
        at = entry.get("at")
        when = iso(at) if is_timestamp(at) else "?"
        if entry.get("kind") == MODEL_CALL:
            lines.append(f"{when}  model call  {entry.get('origin', '?')}")
            lines.append(f"  {'model':<10} {render_model_call(entry)}")
            continue
        lines.append(f"{when}  {entry.get('agent', '?')}  {entry.get('origin', '?')}")
        if entry.get("message"):
            lines.append(f"  message    {entry['message']}")
        for decision in entry.get("decisions") or []:
            if isinstance(decision, dict):
                lines.append(_decision_line(decision))
        for note in entry.get("reading") or []:
            lines.append(f"  {'read':<10} {note}")
    return "\n".join(lines)


@click.command("learning")
@click.option(
    "-n",
    "--limit",
    type=click.IntRange(1, 500),
    default=10,
    show_default=True,
    help="How many of the latest turns to show.",
)
@json_option
def learning_command(limit: int, as_json: bool) -> None:
    """Show what the latest turns captured for learning, and what they skipped and why.

    Each turn lists the user statement and the progress observation: the source it became,
    or the reason it was skipped (no statement, a question, a duplicate, no work request,
    no work operation, excluded, no target). A "read" line says what reading the turn left
    out and why (operations past the bound, records too long, a turn the transcript did not
    hold). Each model call the worker made is listed too: provider and model, tokens in and
    out, the cost the provider reported (Claude Code and Pi report one), the source and how
    the attempt ended. Newest first.
    """
    entries = read_entries(settings().home, limit)
    emit({"turns": entries}, as_json, render_learning)


COMMANDS = [learning_command]
