"""The pages of what runs: Queue (as `memevo status` reports it), Learning, Injections.

On a team store (docs/team.md) the Queue is the person's own: their sources, which only
their own worker consolidates (memory_core/reports/status.py). Learning and Injections read
the logs of this state directory, which hold only this person's turns.
"""

from __future__ import annotations

from typing import Any

from cli.model_use import MODEL_CALL, render_cost, render_model_call
from cli.ui.context import PageContext
from cli.ui.html import action_form, e, hidden, link, when
from memory_core.capture.learning_log import REASONS, read_entries
from memory_core.reports.injection_log import read_injections
from memory_core.reports.status import build_status
from memory_core.store.schema.owners import source_owner_clause

Page = tuple[str, str]
PAUSED_SHOWN = 20
LOG_SHOWN = 100


def _rows(pairs: list[tuple[str, object]]) -> str:
    return "".join(f"<tr><th scope='row'>{e(k)}</th><td class='num'>{e(v)}</td></tr>" for k, v in pairs)


def queue_page(ctx: PageContext) -> Page:
    with ctx.store() as store:
        report = build_status(store, ctx.settings, ctx.now)
        mine, owners = source_owner_clause(store.conn)
        paused = store.conn.execute(
            "SELECT id, consecutive_failures, last_error_code, last_error_reason, last_failure_at FROM sources "
            f"WHERE state = 'paused'{mine} ORDER BY last_failure_at DESC LIMIT ?",
            (*owners, PAUSED_SHOWN),
        ).fetchall()
    jobs, worker, budget = report["jobs"], report["worker"], report["budget"]
    body = [
        '<h2 id="jobs">Jobs by state</h2><table aria-labelledby="jobs"><tbody>',
        _rows([(state, count) for state, count in jobs.items()]),
        "</tbody></table>",
        '<h2 id="failures">Failures</h2>',
    ]
    if report["failed_jobs"]:
        body.append(
            '<table aria-labelledby="failures"><thead><tr><th scope="col">Source</th><th scope="col">State</th>'
            '<th scope="col" class="num">Failures</th><th scope="col">Reason</th><th scope="col">Last failure</th>'
            '<th scope="col">Next retry</th></tr></thead><tbody>'
        )
        for job in report["failed_jobs"]:
            reason = job["error_code"] or "-"
            if job["error_reason"]:
                reason += f" ({job['error_reason']})"
            body.append(
                f"<tr><td><code>{e(job['source_id'])}</code></td><td>{e(job['state'])}</td>"
                f"<td class='num'>{e(job['failures'])}</td><td>{e(reason)}</td><td>{e(job['last_failure'] or '-')}</td>"
                f"<td>{when(job['next_due_at']) if job['next_due_at'] else 'paused'}</td></tr>"
            )
        body.append("</tbody></table>")
    else:
        body.append("<p>No job is failing.</p>")
    body.append('<h2 id="paused">Paused sources</h2>')
    if paused:
        body.append('<ul aria-labelledby="paused">')
        for source_id, failures, code, reason, at in paused:
            why = f"{code or '-'}{' (' + reason + ')' if reason else ''}"
            body.append(
                f"<li><code>{e(source_id)}</code>: {e(failures)} failures, last {e(why)} {when(at)} "
                + action_form(
                    "/queue/evolve", "Evolve now", ctx.csrf, back="/queue", fields=hidden("source", source_id)
                )
                + "</li>"
            )
        body.append("</ul>")
    else:
        body.append("<p>No paused source.</p>")
    heartbeat = worker["last_heartbeat"]
    body += [
        '<h2 id="budget">Today\'s model use</h2><table aria-labelledby="budget"><tbody>',
        _rows(
            [
                ("model", f"{worker.get('model_provider') or '-'}, {worker.get('model') or 'its own default'}"),
                ("model calls", f"{worker['model_calls_today']} of {worker['daily_call_limit']}"),
                ("tokens", f"{worker['model_tokens_today']} of {worker['daily_token_limit']}"),
                ("reported cost", render_cost(worker)),
                ("budget spent", "yes" if worker["budget_spent"] else "no"),
                ("resets at", worker["budget_resets_at"] or "-"),
                ("sources waiting for the model", budget["sources_waiting"]),
                ("days to drain them", budget["days_to_drain"] if budget["days_to_drain"] is not None else "-"),
                ("of them backfilled, queued behind live captures", _scheduled(budget)),
            ]
        ),
        "</tbody></table>",
        '<h2 id="worker">Worker</h2>',
        f"<p>Last heartbeat: {e(heartbeat) if heartbeat else 'never (is `memevo worker` running?)'}"
        + (f" ({e(worker['heartbeat_age_seconds'])} s ago)" if heartbeat else "")
        + ("" if not worker["waiting_for_model"] else f". No model configured: {e(worker['model_hint'] or '')}")
        + "</p>",
        '<p class="muted small">The same figures as <code>memevo status</code>.</p>',
    ]
    return "Queue", "".join(body)


def _scheduled(budget: dict[str, Any]) -> str:
    """The backfill backlog as `memevo status` shows it draining: its sources and the last due time."""
    scheduled = budget.get("scheduled_backfill") or {}
    if not scheduled.get("sources"):
        return "none"
    return f"{scheduled['sources']}, one after another until {scheduled['last_due_at']}"


def learning_page(ctx: PageContext) -> Page:
    entries = read_entries(ctx.home, LOG_SHOWN)
    if not entries:
        return "Learning", "<p>No turns logged yet (the learning log fills as agents' turns end).</p>"
    rows = []
    for entry in entries:
        decisions = []
        for d in entry.get("decisions") or []:
            if not isinstance(d, dict):
                continue
            reason = str(d.get("reason"))
            if reason == "captured":
                text = "captured as source " + str(d.get("source_id"))
            else:
                text = "skipped: " + REASONS.get(reason, reason)
            decisions.append(f"<li>{e(d.get('source_type'))}: {e(text)}</li>")
        message = render_model_call(entry) if entry.get("kind") == MODEL_CALL else entry.get("message") or ""
        rows.append(
            f"<tr><td class='small'>{when(entry.get('at'))}</td><td>{e(entry.get('agent', '?'))}</td>"
            f"<td class='small'>{e(entry.get('origin', '?'))}</td><td>{e(message)}"
            f"<ul class='small'>{''.join(decisions)}</ul></td></tr>"
        )
    return "Learning", (
        "<p>What each of the latest turns captured for learning, or why it skipped (newest first; "
        "<code>memevo learning</code>).</p>"
        '<table><thead><tr><th scope="col">When</th><th scope="col">Agent</th><th scope="col">Project</th>'
        f'<th scope="col">Message and decisions</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def injections_page(ctx: PageContext) -> Page:
    entries = read_injections(ctx.home, LOG_SHOWN)
    intro = (
        "<p>Every digest memevo added to an agent's turn and every lookup it answered, newest first "
        "(<code>memevo log</code>). The prompt and the query are never kept.</p>"
    )
    if not entries:
        return "Injections", intro + "<p>Nothing injected yet.</p>"
    rows = "".join(
        f"<tr><td class='small'>{when(x['at'])}</td><td>{e(x['kind'])}</td><td>{e(x.get('agent') or '-')}</td>"
        f"<td class='small'>{e(x.get('session') or '-')}</td><td class='small'>{e(x.get('project') or '-')}</td>"
        f"<td>{' '.join(link('/memory/' + str(c), str(c)[:8]) for c in x['claims']) or '-'}</td>"
        f"<td class='num'>{e(x['bytes'])}</td></tr>"
        for x in entries
    )
    return "Injections", intro + (
        '<table><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Agent</th>'
        '<th scope="col">Session</th><th scope="col">Project</th><th scope="col">Claims</th>'
        f'<th scope="col" class="num">Bytes</th></tr></thead><tbody>{rows}</tbody></table>'
    )
