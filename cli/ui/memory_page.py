"""One memory: what it says, where it came from, how it ages, its feedback and its history,
with the controls a person has over it (the CLI's own, through cli/ui/actions.py).

On a team store (docs/team.md) the page is `memevo show`'s: another member's personal claim
is answered as no claim at all, and its history as no history (events touching it are left
out, as `memevo history` leaves them out); another member's shared claim says whose it is,
and each change another member made says who made it. The page shows no source's text.
"""

from __future__ import annotations

from typing import Any

from cli.ui.context import PageContext
from cli.ui.html import action_form, e, hidden, link, when
from memory_core.clock import iso
from memory_core.controls.feedback import VERDICTS
from memory_core.errors import NotFoundError
from memory_core.ids import is_memory_id
from memory_core.recall.aging import SECONDS_PER_DAY, policy_for
from memory_core.records import Event, Memory
from memory_core.reports.inspection import describe_memory, events_touching
from memory_core.store.schema.owners import hidden_claim_ids, may_see_claim, others_owners
from memory_core.store.tables.memories import get_memory

Page = tuple[str, str]
RECEIPTS_SHOWN = 20
EVENTS_SHOWN = 20
FIELDS = ("status", "content", "pinned", "kind", "replaced_by", "replaces")


def _receipts(conn: Any, memory_id: str) -> list[tuple[str, str, float]]:
    rows = conn.execute(
        "SELECT source_id, verdict, at FROM feedback_receipts WHERE memory_id=? ORDER BY at DESC LIMIT ?",
        (memory_id, RECEIPTS_SHOWN),
    ).fetchall()
    return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]


def _state(memory: Memory | None) -> dict[str, Any]:
    if memory is None:
        return {}
    data = {name: getattr(memory, name) for name in FIELDS}
    data["evidence"] = f"{memory.evidence.basis}/{memory.evidence.method}" if memory.evidence else None
    data["feedback"] = (
        ", ".join(
            f"{slot} {v.verdict}"
            for slot, v in (("utility", memory.feedback.utility), ("accuracy", memory.feedback.accuracy))
            if v
        )
        or None
    )
    return data


def _change_rows(memory_id: str, event: Event) -> str:
    """Before and after of this memory (fields that changed), and the other records touched."""
    before = next((m for m in event.before if m.id == memory_id), None)
    after = next((m for m in event.after if m.id == memory_id), None)
    old, new = _state(before), _state(after)
    rows = []
    for name in (*FIELDS, "evidence", "feedback"):
        a, b = old.get(name), new.get(name)
        if before is None and b in (None, False, ""):
            continue
        if before is not None and a == b:
            continue
        rows.append(
            f"<tr><th scope='row'>{e(name)}</th><td class='diff-old'>{e('-' if before is None else a)}</td>"
            f"<td class='diff-new'>{e(b)}</td></tr>"
        )
    others = sorted({m.id for m in event.before + event.after} - {memory_id})
    extra = (
        "<p class='small'>Also changed: " + " ".join(link("/memory/" + o, o) for o in others) + "</p>" if others else ""
    )
    if not rows:
        return extra
    return (
        "<table class='small'><thead><tr><th scope='col'>Field</th><th scope='col'>Before</th>"
        f"<th scope='col'>After</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{extra}"
    )


def memory_page(ctx: PageContext, memory_id: str) -> Page:
    if not is_memory_id(memory_id):
        raise NotFoundError(f"{memory_id!r} is not a memory id (24 lowercase hex characters)")
    with ctx.store() as store:
        # Another member's personal claim is as absent as no claim (the administrator's login
        # reads every row, so the rule is applied here, not left to row-level security).
        memory = get_memory(store.conn, memory_id) if may_see_claim(store.conn, memory_id) else None
        if memory is None:
            raise NotFoundError(f"no memory with id {memory_id}; search for it on the Memories page")
        data = describe_memory(store.conn, memory, ctx.now)
        receipts = _receipts(store.conn, memory_id)
        unseen = hidden_claim_ids(store.conn)
        events = [
            event
            for event in events_touching(store.conn, memory_id, limit=EVENTS_SHOWN)
            if not any(m.id in unseen for m in event.before + event.after)
        ]
        by = others_owners(store.conn, "events", [event.id for event in events])
        from cli.ui.pages import stale_here

        stale = stale_here(store.conn, ctx, [memory]).get(memory.id)
    back = f"/memory/{memory_id}"
    quality, prov, evidence = data["quality"], data["provenance"], data["evidence"]
    if quality["dormant"]:
        aging = f"dormant: not offered automatically (age {quality['age_days']:.1f} days)"
    elif memory.pinned:
        aging = "pinned: does not age"
    else:
        horizon = memory.clock_at + policy_for(memory.kind).dormant_after_days * SECONDS_PER_DAY
        aging = (
            f"freshness {quality['freshness']:.2f} at {quality['age_days']:.1f} days; "
            f"goes dormant after {(iso(horizon) or '-')[:10]} unless confirmed or renewed"
        )
    facts = [
        ("Kind", e(memory.kind)),
        *([("Owner", f"{e(data['owner'])} (shared with the team)")] if "owner" in data else []),
        (
            "Status",
            f'<span class="tag {e(memory.status)}">{e(memory.status)}</span>'
            + (" pinned" if memory.pinned else "")
            + (" (provisional: inferred by a model)" if memory.provisional else ""),
        ),
        (
            "Evidence",
            "unknown"
            if evidence is None
            else f"{e(evidence['basis'])} / {e(evidence['method'])} from <code>{e(evidence['source_id'])}</code> "
            f"at {when(evidence['at'])}",
        ),
        (
            "Source",
            f"<code>{e(prov['source_id'] or '-')}</code>"
            + (f" (model {e(prov['model_id'])})" if prov["model_id"] else ""),
        ),
        ("Project", e(prov["origin"])),
        *(
            [("Checkout", f'<span class="tag stale">stale</span> {e(stale)}; not injected automatically')]
            if stale
            else []
        ),
        ("Created", when(prov["created_at"])),
        ("Updated", f"{when(prov['updated_at'])} (revision {e(prov['revision'])})"),
        ("Aging", e(aging)),
        (
            "Ranking",
            e(
                f"evidence x{quality['evidence_weight']}, utility x{quality['utility']}, "
                f"accuracy x{quality['accuracy']}"
            ),
        ),
    ]
    if prov["replaces"]:
        facts.append(("Replaces", link("/memory/" + prov["replaces"], prov["replaces"])))
    if prov["replaced_by"]:
        facts.append(("Replaced by", link("/memory/" + prov["replaced_by"], prov["replaced_by"])))
    if quality["content_blocked"]:
        facts.append(("Blocked", "this content may not be re-added automatically in its project"))
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    live = memory.status in ("active", "conflicted")
    buttons = []
    if memory.status != "forgotten":
        buttons.append(
            action_form(
                f"/memory/{memory_id}/forget",
                "Forget",
                ctx.csrf,
                back=back,
                css="danger",
                confirm="Forget this memory? You can undo it from its history.",
            )
        )
    if live:
        buttons.append(
            action_form(
                f"/memory/{memory_id}/{'unpin' if memory.pinned else 'pin'}",
                "Unpin" if memory.pinned else "Pin",
                ctx.csrf,
                back=back,
            )
        )
    if memory.status == "conflicted":
        buttons.append(action_form(f"/memory/{memory_id}/resolve", "Resolve", ctx.csrf, back=back))
    if memory.status == "active":
        for verdict in VERDICTS:
            buttons.append(
                action_form(
                    f"/memory/{memory_id}/feedback",
                    f"Mark {verdict}",
                    ctx.csrf,
                    back=back,
                    fields=hidden("verdict", verdict),
                )
            )
    correct = ""
    if live:
        correct = (
            f'<form method="post" action="/memory/{e(memory_id)}/correct" id="correct" class="card">'
            f"{hidden('csrf', ctx.csrf)}{hidden('back', back)}"
            '<label for="correction">Correct it: the full corrected text</label><br>'
            '<textarea id="correction" name="text" rows="3" cols="80" maxlength="4000" required>'
            f"{e(memory.content)}</textarea><br>"
            '<button type="submit">Correct</button></form>'
        )
    receipt_rows = "".join(
        f"<tr><td>{e(verdict)}</td><td><code>{e(source)}</code></td><td>{when(at)}</td></tr>"
        for source, verdict, at in receipts
    )
    receipts_html = (
        '<table><thead><tr><th scope="col">Verdict</th><th scope="col">From</th><th scope="col">When</th></tr></thead>'
        f"<tbody>{receipt_rows}</tbody></table>"
        if receipts
        else "<p>No feedback received.</p>"
    )
    history = []
    for event in events:
        undo = action_form("/undo", f"Undo event {event.id}", ctx.csrf, back=back, fields=hidden("event", event.id))
        history.append(
            f'<section class="card" aria-label="event {e(event.id)}"><p><strong>{e(event.operation)}</strong> '
            f"by {e(event.actor)}{', ' + e(by[str(event.id)]) if str(event.id) in by else ''} at {when(event.at)} "
            f'<span class="muted">(event {e(event.id)}'
            f"{', ' + e(event.reason) if event.reason else ''})</span></p>"
            f"{_change_rows(memory_id, event)}<div class='row-actions'>{undo}</div></section>"
        )
    body = (
        f'<div class="card"><p class="content">{e(memory.content)}</p>'
        f'<p class="small muted"><code>{e(memory_id)}</code></p></div>'
        f'<dl class="facts">{dl}</dl>'
        f'<h2>Actions</h2><div class="actions">{"".join(buttons)}</div>{correct}'
        f"<h2>Feedback receipts</h2>{receipts_html}"
        f"<h2>History</h2>{''.join(history) or '<p>No recorded changes.</p>'}"
    )
    return "Memory", body
