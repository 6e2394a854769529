"""`memevo recall`, `memevo search` and `memevo explain`: read-only lookups.

They resolve the state dir with :func:`memory_core.paths.state_home` rather than the full
settings: recall needs nothing else, and loading the settings models would cost more than
the lookup itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from cli.context import emit, json_option
from memory_core import clock
from memory_core.errors import UsageError
from memory_core.paths import state_home
from memory_core.recall.service import (
    open_recall_store,
    preview,
    read_last_diagnostics,
    recall,
    search,
    validate_query,
)

if TYPE_CHECKING:
    from memory_core.recall.results import RecallResult
    from memory_core.store.engines.dbapi import DbConn


def _render_recall(data: dict[str, Any]) -> str:
    return data["digest"] or "no memory matches this query"


def _render_search(data: dict[str, Any]) -> str:
    if not data["claims"]:
        return "no memory matches this query"
    lines = []
    for c in data["claims"]:
        flags = " dormant" if c["dormant"] else ""
        flags += " pinned" if c["pinned"] else ""
        text = " ".join(c["excerpt"].split())
        lines.append(
            f"{c['id']}  {c['kind']:<13} score {c['rank_score']:.3f} fresh {c['freshness']:.2f}{flags}  {text[:100]}"
        )
    lines.append("`memevo show ID` for details")
    return "\n".join(lines)


def _render_diagnostics(data: dict[str, Any] | None) -> str:
    if not data:
        return "no automatic recall recorded yet; `memevo explain QUERY` previews one"
    if data.get("failed"):
        return "\n".join(
            [
                f"trigger:    {data.get('trigger')} at {clock.iso(data.get('at'))}",
                f"failed:     {data['failed']}: {data.get('detail', '')}",
                "digest:     0 claims, 0 bytes",
            ]
        )
    plan = data.get("plan", {})
    life = data.get("lifecycle", {})
    digest = data.get("digest", {})
    lines = [
        f"trigger:    {data.get('trigger')} at {clock.iso(data.get('at'))}",
        f"plan:       {plan.get('mode')}; focus: {', '.join(plan.get('focus', [])) or '-'}; "
        f"context: {', '.join(plan.get('context', [])) or '-'}"
        + ("; events: " + " / ".join(repr(e) for e in plan["events"]) if plan.get("events") else "")
        + (_time_text(plan) if plan.get("time") else "")
        + (f"; asks a kind: {plan['asks_kind']}" if plan.get("asks_kind") else ""),
        "lifecycle:  " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in life.items()),
        f"digest:     {digest.get('claims', 0)} claims, {digest.get('bytes', 0)} bytes",
    ]
    lead = data.get("lead")
    if lead:
        ahead = "alone" if lead.get("ratio") is None else f"{lead['ratio']:.2f}x the next"
        state = "taken" if lead.get("taken") else "not taken"
        lines.append(
            f"lead:       {lead['id']} {state} (no claim passed the gates; it failed {lead.get('gate')}, "
            f"scores {ahead}, matches {lead.get('coverage', 0):.0%} of the question)"
        )
    candidates = data.get("candidates", [])
    if candidates:
        lines.append("candidates:")
    for c in candidates:
        rank = f"{c['rank']:.3f}" if c.get("rank") is not None else "-"
        verdict = "selected" if c.get("excluded") is None else f"excluded: {c['excluded']}"
        lines.append(
            f"  {c['id']} {c['kind']:<13} raw {c['raw']:.3f} rank {rank} "
            f"{c['basis']}/{c['method']} fresh {c['freshness']:.2f} utility {c['utility']:.2f} "
            f"accuracy {c['accuracy']:.2f}  {verdict}"
        )
        lines.append(
            f"      matched: {', '.join(c.get('matched', [])) or '-'}"
            + (f"; context: {', '.join(c['context_matched'])}" if c.get("context_matched") else "")
        )
    for note in data.get("notes", []):
        lines.append(f"note: {note}")
    if data.get("truncated"):
        lines.append("(diagnostics truncated to 8,000 bytes)")
    claim = data.get("claim")
    if claim:
        lines.extend(_render_claim(claim))
    return "\n".join(lines)


def _time_text(plan: dict[str, Any]) -> str:
    """The plan line's part for a question naming a time (memory_core.recall.dated)."""
    if plan.get("time_only"):
        return f"; time: {plan['time']} (asked alone: the claims dated then answer)"
    return f"; time: {plan['time']} (claims dated then answer first)"


def _render_claim(claim: dict[str, Any]) -> list[str]:
    """What became of the claim named by ``--claim``: selected, or the gate or step that dropped it."""
    if claim.get("selected"):
        how = "as complementary evidence" if claim.get("complement") else "by relevance"
        how = "as the lexical lead" if claim.get("lead") else how
        how = (
            f"as the answer to one of two events the question joins: {claim['event']!r}" if claim.get("event") else how
        )
        if claim.get("reply_to"):
            how = f"as the reply to request {claim['reply_to']}: the question asks what the assistant said"
        if claim.get("updates") == "tied":
            how = "as the newest change among claims tied too many to tell apart: the question asks what holds now"
        elif claim.get("updates"):
            how = f"as a later change of claim {claim['updates']}: the question asks what holds now"
        if claim.get("dated_within"):
            how = (
                f"dated within the time the question asks about, {claim['time']}"
                if claim.get("time_only")
                else f"{how}, dated within the time the question names, {claim['time']}"
            )
        lines = [f"claim {claim['id']}: selected ({how})"]
    else:
        stage = {
            "gate": "dropped by a relevance gate",
            "selection": "dropped at selection",
            "index": "not recallable",
        }.get(claim.get("stage", ""), "dropped")
        lines = [f"claim {claim['id']}: {stage} ({claim.get('reason')}): {claim.get('detail', '')}"]
        if claim.get("status"):
            lines.append(f"      status: {claim['status']}")
    if claim.get("lead"):
        lines.append(f"      {claim['lead']}")
    if claim.get("asked_kind"):
        lines.append(f"      {claim['asked_kind']}")
    if "raw" in claim:
        lines.append(
            f"      raw {claim['raw']:.3f}, matched {claim.get('coverage', 0):.0%} of the question's "
            f"weight; matched: {', '.join(claim.get('matched', [])) or '-'}; "
            f"missing: {', '.join(claim.get('missing', [])) or '-'}"
        )
    return lines


def _batch(handle: IO[str], include_dormant: bool) -> None:
    """One JSON result per JSON line in, using one read-only connection for the whole file."""
    now = clock.now()
    home = state_home()
    store = open_recall_store(home)
    try:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            request_id: Any = None
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise UsageError("each line must be a JSON object")
                request_id = request.get("id")
                query = validate_query(request.get("query"))
                context = request.get("context") or []
                if not isinstance(context, list) or not all(isinstance(t, str) for t in context):
                    raise UsageError('"context" must be a list of earlier user texts')
            except (ValueError, RecursionError, UsageError) as exc:
                detail = str(exc)[:200] or "nested too deeply"
                message = str(exc) if isinstance(exc, UsageError) else f"not JSON: {detail}"
                click.echo(json.dumps({"id": request_id, "line": number, "error": message}, ensure_ascii=False))
                continue
            if store is None:
                out: dict[str, Any] = {"claims": [], "digest": ""}
            else:
                result = recall(store.conn, query, context=context, now=now, include_dormant=include_dormant)
                out = _gated(store.conn, home, result).as_dict()
            _log_lookup(home, now, out)
            click.echo(json.dumps({"id": request_id, **out}, ensure_ascii=False))
    finally:
        if store is not None:
            store.close()


@click.command("recall")
@click.argument("query", required=False)
@click.option("--include-dormant", is_flag=True, help="Also return claims too old to be offered automatically.")
@click.option(
    "--batch",
    "batch_file",
    type=click.File("r", encoding="utf-8"),
    help='JSON lines {"id", "query", "context": [earlier user texts]}; one result line each ("-" for stdin).',
)
@json_option
def recall_command(query: str | None, include_dormant: bool, batch_file: IO[str] | None, as_json: bool) -> None:
    """Recall the claims that answer QUERY (1-512 characters), read-only."""
    if batch_file is not None:
        if query is not None:
            raise UsageError("give either QUERY or --batch FILE, not both")
        _batch(batch_file, include_dormant)
        return
    text = validate_query(query)
    home = state_home()
    now = clock.now()
    store = open_recall_store(home)
    if store is None:
        data: dict[str, Any] = {"query": text, "claims": [], "digest": ""}
    else:
        with store:
            result = _gated(store.conn, home, recall(store.conn, text, now=now, include_dormant=include_dormant))
        data = {"query": text, **result.as_dict()}
    _log_lookup(home, now, data)
    emit(data, as_json, _render_recall)


def _gated(conn: DbConn, home: Path, result: RecallResult) -> RecallResult:
    """``result`` without claims pending review when ``review_before_recall`` is on."""
    from memory_core.reports.review_gate import gate_enabled, hold_unreviewed

    return hold_unreviewed(conn, result) if result.claims and gate_enabled(home) else result


def _log_lookup(home: Path, now: float, data: dict[str, Any]) -> None:
    """Note the answered lookup in the injection log (ids and size, never the query)."""
    import os

    from memory_core.reports.injection_log import project_of, record_injection

    record_injection(
        home,
        kind="lookup",
        at=now,
        agent="cli",
        session_id=None,
        project=project_of(os.getcwd(), home),
        claim_ids=[c["id"] for c in data["claims"]],
        size_bytes=len(json.dumps({k: v for k, v in data.items() if k != "query"}, ensure_ascii=False).encode("utf-8")),
        via="memevo recall",
    )


@click.command("search")
@click.argument("query")
@click.option(
    "--include-dormant/--no-dormant",
    default=True,
    show_default=True,
    help="List claims too old to be offered automatically (marked dormant).",
)
@json_option
def search_command(query: str, include_dormant: bool, as_json: bool) -> None:
    """List up to 10 claims that match QUERY, best first, read-only."""
    text = validate_query(query)
    store = open_recall_store(state_home())
    if store is None:
        data: dict[str, Any] = {"query": text, "claims": []}
    else:
        with store:
            result = search(store.conn, text, now=clock.now(), include_dormant=include_dormant)
        data = {"query": text, "claims": [c.as_dict() for c in result.claims]}
    emit(data, as_json, _render_search)


@click.command("explain")
@click.argument("query", required=False)
@click.option(
    "--claim",
    "claim_id",
    metavar="ID",
    help="Also say what became of this claim for QUERY: selected, or which gate or step dropped it.",
)
@click.option(
    "--session-start",
    "session_start",
    is_flag=True,
    help="Show the standing digest a session here would start with, and why each convention is in or out.",
)
@click.option(
    "--project",
    "project_dir",
    metavar="PATH",
    type=click.Path(file_okay=False),
    help="With --session-start: a directory of the project instead of the current one.",
)
@json_option
def explain_command(
    query: str | None, claim_id: str | None, session_start: bool, project_dir: str | None, as_json: bool
) -> None:
    """Show why the last automatic recall chose what it chose, or preview QUERY (no bodies)."""
    home = state_home()
    if session_start or project_dir is not None:
        if query is not None or claim_id is not None or not session_start:
            raise UsageError("--session-start takes no QUERY or --claim; --project needs --session-start")
        from cli.commands.check_cmd import explain_session_start, render_session_start

        emit(explain_session_start(home, project_dir, clock.now()), as_json, render_session_start)
        return
    if query is None:
        if claim_id is not None:
            raise UsageError('--claim needs a QUERY, e.g. `memevo explain "sqlite port" --claim ID`')
        data = read_last_diagnostics(home)
    else:
        text = validate_query(query)
        # Imported here: it loads hashlib, which `memevo recall` never needs.
        from memory_core.ids import is_memory_id

        if claim_id is not None and not is_memory_id(claim_id):
            raise UsageError(
                f"{claim_id!r} is not a memory id (24 lowercase hex characters); see `memevo search QUERY`"
            )
        store = open_recall_store(home)
        if store is None:
            data = preview(None, text, now=clock.now(), claim=claim_id)
        else:
            with store:
                import os

                from memory_core.recall.checkout_check import checkout_check_for

                stale = checkout_check_for(store.conn, os.getcwd(), home)
                data = preview(store.conn, text, now=clock.now(), claim=claim_id, stale=stale)
    emit(data, as_json, _render_diagnostics)


COMMANDS = [recall_command, search_command, explain_command]
