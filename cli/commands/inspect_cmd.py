"""`memevo list`, `memevo show` and `memevo history`: read-only inspection."""

from __future__ import annotations

import os
from typing import Any

import click

from cli.context import emit, json_option, open_store
from memory_core import clock
from memory_core.clock import iso
from memory_core.controls.transfer import LEGACY_ORIGIN
from memory_core.errors import NotFoundError
from memory_core.ids import is_memory_id
from memory_core.records import KINDS, MEMORY_STATUSES
from memory_core.reports.inspection import (
    MAX_PAGE,
    describe_memory,
    describe_source,
    event_summary,
    history_page,
    list_memories,
    memory_summary,
)
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import may_see_claim, others_owners, owns_source
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.sources import get_source

EXCERPT_CHARS = 80


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


def _origin_filter(conn: DbConn, choice: str) -> tuple[str, ...]:
    if choice == "here":
        # The project a capture here is filed under, with the path origins it adopted.
        from memory_core.capture.intake import canonical_origin
        from memory_core.store.tables.origin_aliases import project_origins

        return project_origins(conn, canonical_origin(os.getcwd()))
    if choice == "legacy":
        return (LEGACY_ORIGIN,)
    return ()


def _status_label(memory: dict[str, Any]) -> str:
    return memory["status"] + (" pinned" if memory["pinned"] else "")


def _render_list(data: dict[str, Any]) -> str:
    rows = data["memories"]
    if not rows:
        return f"no memories on page {data['page']}"
    lines = [
        f"{m['id']}  {m['kind']:<13} {_status_label(m):<17} {iso(m['updated_at'])}  "
        f"{'~ ' if m['provisional'] else ''}{_excerpt(m['content'])}"
        for m in rows
    ]
    lines.append(
        f"page {data['page']} ({len(rows)} shown); `memevo show ID` for details"
        + ("; ~ provisional: inferred by a model" if any(m["provisional"] for m in rows) else "")
    )
    return "\n".join(lines)


@click.command("list")
@click.option(
    "--origin",
    "origin_choice",
    type=click.Choice(["here", "legacy", "all"]),
    default="all",
    show_default=True,
    help="here: this directory's project (its repository); legacy: imported without an origin.",
)
@click.option("--kind", type=click.Choice(KINDS), help="Only this kind.")
@click.option("--status", type=click.Choice(MEMORY_STATUSES), help="Only this status.")
@click.option(
    "--page",
    type=click.IntRange(min=1, max=MAX_PAGE),
    default=1,
    show_default=True,
    help="20 memories a page, newest first.",
)
@json_option
def list_command(origin_choice: str, kind: str | None, status: str | None, page: int, as_json: bool) -> None:
    """List memories, 20 a page, most recently updated first."""
    with open_store() as store:
        origins = _origin_filter(store.conn, origin_choice)
        memories = list_memories(store.conn, origins=origins, kind=kind, status=status, page=page)
        owners = others_owners(store.conn, "memories", [m.id for m in memories])
    data = {"page": page, "memories": [memory_summary(m, owners.get(m.id)) for m in memories]}
    emit(data, as_json, _render_list)


SOURCE_TEXT_SHOWN = 2_000


def _render_source(data: dict[str, Any]) -> str:
    job = data["job"]
    why = job["last_error_code"] or "-"
    if job["last_error_reason"]:
        why += f" ({job['last_error_reason']})"
    text = data["text"]
    if len(text) > SOURCE_TEXT_SHOWN:
        text = text[:SOURCE_TEXT_SHOWN] + f"… ({len(data['text']) - SOURCE_TEXT_SHOWN} more characters; --json)"
    lines = [
        f"source:       {data['id']} ({data['source_type']}, from {data['agent']})",
        f"origin:       {data['origin']}",
        f"captured:     {iso(data['created_at'])}",
        f"job:          {job['state']}, {job['attempts']} attempts, {job['consecutive_failures']} consecutive failures",
        f"last error:   {why}" + (f" at {iso(job['last_failure_at'])}" if job["last_failure_at"] else ""),
    ]
    if job["next_due_at"] is not None:
        lines.append(f"next attempt: {iso(job['next_due_at'])}")
    if job["forced_requested_at"] is not None:
        lines.append(f"forced:       an attempt was requested at {iso(job['forced_requested_at'])} (`memevo evolve`)")
    if job["completed_at"] is not None:
        lines.append(f"completed:    {iso(job['completed_at'])}")
    if data["target_ids"]:
        lines.append(f"nominated:    {' '.join(data['target_ids'])}")
    for claim in data["claims"]:
        lines.append(f"claim:        {claim['id']} {claim['kind']} {claim['status']}")
    for event in data["events"]:
        lines.append(f"event {event['id']}:{'':<6}{event['operation']} by {event['actor']} at {iso(event['at'])}")
    lines.append("text:")
    lines.extend(f"  {line}" for line in text.splitlines() or [""])
    return "\n".join(lines)


def _render_show(data: dict[str, Any]) -> str:
    if data.get("type") == "source":
        return _render_source(data)
    prov, evidence, quality = data["provenance"], data["evidence"], data["quality"]
    lines = [
        f"id:           {data['id']}",
        f"kind:         {data['kind']}",
        f"status:       {data['status']}{' (pinned)' if data['pinned'] else ''}"
        + (", provisional: inferred by a model, not confirmed by a person" if data["provisional"] else ""),
        f"content:      {data['content']}",
        f"aliases:      {', '.join(data['search_terms']) or '-'}",
        f"origin:       {prov['origin']}",
        f"source:       {prov['source_id'] or '-'}" + (f" (model {prov['model_id']})" if prov["model_id"] else ""),
        f"created:      {iso(prov['created_at'])}",
        f"updated:      {iso(prov['updated_at'])} (revision {prov['revision']})",
        f"confirmed:    {iso(prov['confirmed_at']) or '-'}",
    ]
    if prov["replaces"]:
        lines.append(f"replaces:     {prov['replaces']}")
    if prov["replaced_by"]:
        lines.append(f"replaced by:  {prov['replaced_by']}")
    if evidence is None:
        lines.append("evidence:     unknown")
    else:
        lines.append(
            f"evidence:     {evidence['basis']}/{evidence['method']} from "
            f"{evidence['source_id']} at {iso(evidence['at'])}"
        )
    for slot in ("utility", "accuracy"):
        verdict = data["feedback"][slot]
        lines.append(
            f"{slot + ':':<14}"
            + ("-" if verdict is None else f"{verdict['verdict']} ({verdict['source_id']}, {iso(verdict['at'])})")
        )
    lines.append(f"priority:     {quality['source_priority']} (source appropriateness, not truth)")
    lines.append(
        f"freshness:    {quality['freshness']:.2f} (age {quality['age_days']:.1f} days"
        + (", dormant: not offered automatically" if quality["dormant"] else "")
        + ")"
    )
    lines.append(
        f"ranking:      evidence x{quality['evidence_weight']}, utility x{quality['utility']}, "
        f"accuracy x{quality['accuracy']}"
    )
    if quality["content_blocked"]:
        lines.append("blocked:      this content may not be re-added automatically in its origin")
    checkout = data.get("checkout")
    if checkout and checkout["stale"]:
        lines.append(f"checkout:     {checkout['line']}; not injected automatically")
    elif checkout and checkout["names"]:
        lines.append(f"checkout:     {', '.join(checkout['names'])} present (checked {iso(checkout['checked_at'])})")
    for event in data["events"]:
        lines.append(f"event {event['id']}:{'':<6}{event['operation']} by {event['actor']} at {iso(event['at'])}")
    return "\n".join(lines)


@click.command("show")
@click.argument("memory_id", metavar="ID")
@json_option
def show_command(memory_id: str, as_json: bool) -> None:
    """Show one memory in full (provenance, evidence, feedback, quality, events), or one
    captured source with its job: state, attempts and why the last attempt failed."""
    if not is_memory_id(memory_id):
        raise NotFoundError(
            f"{memory_id!r} is not a memory or source id (24 lowercase hex characters); "
            "see `memevo list`, `memevo search` or `memevo status`"
        )
    with open_store() as store:
        # Another member's personal claim or any of their sources is as absent as no record.
        memory = get_memory(store.conn, memory_id) if may_see_claim(store.conn, memory_id) else None
        if memory is not None:
            now = clock.now()
            data = describe_memory(store.conn, memory, now)
            from memory_core.paths import state_home
            from memory_core.reports.stale_claims import claim_staleness

            # Checked against the checkout of the current directory, when the claim is its project's.
            data["checkout"] = claim_staleness(
                store.conn, memory.id, memory.origin, memory.content, os.getcwd(), state_home(), now
            )
        else:
            source = get_source(store.conn, memory_id) if owns_source(store.conn, memory_id) else None
            if source is None:
                raise NotFoundError(f"no memory or source with id {memory_id}; see `memevo list` or `memevo status`")
            data = describe_source(store.conn, source)
    emit(data, as_json, _render_show)


def _render_history(data: dict[str, Any]) -> str:
    if not data["events"]:
        return f"no events on page {data['page']}"
    lines = []
    for e in data["events"]:
        changed = sorted(set(e["before_ids"]) | set(e["after_ids"]))
        lines.append(
            f"{e['id']:>6}  {e['at_iso']}  {e['actor']:<6} {e['operation']:<10} "
            f"{len(changed)} memories: {' '.join(changed[:3])}{' …' if len(changed) > 3 else ''}"
        )
    lines.append(f"page {data['page']}; `memevo undo EVENT_ID` reverts one event")
    return "\n".join(lines)


@click.command("history")
@click.option(
    "--page",
    type=click.IntRange(min=1, max=MAX_PAGE),
    default=1,
    show_default=True,
    help="10 events a page, newest first.",
)
@json_option
def history_command(page: int, as_json: bool) -> None:
    """Show the latest changes to memories, 10 a page, newest first."""
    with open_store() as store:
        events = history_page(store.conn, page)
        by = others_owners(store.conn, "events", [e.id for e in events])
    emit({"page": page, "events": [event_summary(e, by.get(str(e.id))) for e in events]}, as_json, _render_history)


COMMANDS = [list_command, show_command, history_command]
