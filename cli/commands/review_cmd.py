"""`memevo review`: what learning changed since the last review, and approving it."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, open_store
from memory_core import clock
from memory_core.clock import iso
from memory_core.controls.review import approve, approve_all, review_report
from memory_core.errors import UsageError

EXCERPT_CHARS = 100


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


def render_review(data: dict[str, Any]) -> str:
    items = data["items"]
    if not items:
        return "nothing to review: no learning since the last review"
    lines = []
    for item in items:
        claim = item["claim"]
        gone = "" if item["status_now"] == claim["status"] else f" (now {item['status_now']})"
        lines.append(f"{item['change']:<11} {claim['id']}  {claim['kind']}  {iso(item['at'])}{gone}")
        if item["old"] is not None:
            lines.append(f"  - {_excerpt(item['old']['content'])}")
            lines.append(f"  + {_excerpt(claim['content'])}")
        else:
            lines.append(f"  {'!' if item['change'] == 'quarantined' else '+'} {_excerpt(claim['content'])}")
    older = data["events_pending"] - data["events_shown"]
    if older > 0:
        lines.append(f"and {older} older learning events not shown (--approve-all covers them)")
    lines.append(
        f"{len(items)} to review; `memevo review --approve ID` or `--approve-all`; "
        "`memevo correct` / `memevo forget` to change one"
    )
    return "\n".join(lines)


@click.command("review")
@click.option(
    "--approve", "approve_ids", multiple=True, metavar="ID", help="Approve what changed in this memory (repeatable)."
)
@click.option("--approve-all", "approve_everything", is_flag=True, help="Approve everything learned up to now.")
@json_option
def review_command(approve_ids: tuple[str, ...], approve_everything: bool, as_json: bool) -> None:
    """Show what was learned or changed since the last review (new claims, replacements old ->
    new, quarantined variants), or approve it.

    Approving changes no memory: it marks the change as seen (`memevo correct` and
    `memevo forget` change one). With the setting review_before_recall on, claims a model
    learned are recalled only once approved.
    """
    if approve_ids and approve_everything:
        raise UsageError("give either --approve ID... or --approve-all, not both")
    now = clock.now()
    with open_store() as store:
        if approve_everything:
            with store.transaction() as conn:
                done = approve_all(conn, None, now)
            emit(done, as_json, lambda d: f"reviewed through learning event {d['reviewed_through']}")
            return
        if approve_ids:
            with store.transaction() as conn:
                keys = approve(conn, approve_ids, now)
            emit({"approved": keys}, as_json, lambda d: f"approved {len(d['approved'])} item(s)")
            return
        data = review_report(store.conn)
    emit(data, as_json, render_review)


COMMANDS = [review_command]
