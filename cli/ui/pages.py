"""The list pages: Memories (search and filters), Review, Queue, Learning, Injections.

On a team store (docs/team.md) every list holds the claims the person may see, as `memevo
list` does: their own and the team's shared ones, never another member's personal claims
(the administrator's login is not bound by row-level security, so the filter is in these
queries, memory_core.store.schema.owners.visible_clause). Another member's shared claim says whose
it is.
"""

from __future__ import annotations

from typing import Any

from cli.ui.context import PageContext
from cli.ui.html import action_form, e, hidden, link, when
from memory_core.errors import UsageError
from memory_core.recall.aging import AGING_WARNING_BELOW
from memory_core.records import KINDS, MEMORY_STATUSES, Memory
from memory_core.reports.inspection import quality_of
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import others_owners, visible_clause
from memory_core.store.tables.memories import memory_from_row

PAGE_SIZE = 50
SCAN_LIMIT = 2_000  # rows read for the filters computed per claim (evidence, aging)
SEARCH_LIMIT = 200
BASES = ("summary", "user_statement", "tool_observation", "manual_correction")
AGING = ("fresh", "aging", "dormant")
CHECKOUT = ("stale", "current")
Page = tuple[str, str]  # title, body


def _select(name: str, label: str, options: tuple[str, ...], chosen: str) -> str:
    opts = '<option value="">any</option>' + "".join(
        f'<option value="{e(o)}"{" selected" if o == chosen else ""}>{e(o)}</option>' for o in options
    )
    return f'<label for="f-{e(name)}">{e(label)}<select id="f-{e(name)}" name="{e(name)}">{opts}</select></label>'


def _origins(conn: DbConn) -> tuple[str, ...]:
    mine, params = visible_clause(conn)  # another member's personal claims name their own directories
    rows = conn.execute(
        f"SELECT DISTINCT origin FROM memories WHERE 1=1{mine} ORDER BY origin LIMIT 200", params
    ).fetchall()
    return tuple(str(r[0]) for r in rows)


def aging_of(memory: Memory, now: float) -> str:
    """``dormant`` (not offered automatically), ``aging`` (the digest labels it so) or ``fresh``."""
    quality = quality_of(memory, now)
    if quality["dormant"]:
        return "dormant"
    return "aging" if quality["freshness"] < AGING_WARNING_BELOW else "fresh"


def _matches(memory: Memory, ctx: PageContext, aging: str, basis: str) -> bool:
    if basis and (memory.evidence is None or memory.evidence.basis != basis):
        return False
    return not aging or aging_of(memory, ctx.now) == aging


def find_memories(conn: DbConn, ctx: PageContext) -> tuple[list[Memory], bool]:
    """Claims matching the page's search and filters, newest first; and whether the scan was cut."""
    query, project = ctx.param("q"), ctx.param("project")
    kind, status = ctx.param("kind"), ctx.param("status")
    basis, aging = ctx.param("evidence"), ctx.param("aging")
    for value, allowed, name in (
        (kind, KINDS, "kind"),
        (status, MEMORY_STATUSES, "status"),
        (basis, BASES, "evidence"),
        (aging, AGING, "aging"),
    ):
        if value and value not in allowed:
            raise UsageError(f"unknown {name} {value!r}; choose one of: {', '.join(allowed)}")
    clauses, params = [], []
    for column, value in (("origin", project), ("kind", kind), ("status", status)):
        if value:
            clauses.append(f"{column}=?")
            params.append(value)
    if query:
        from memory_core.recall.service import search, validate_query

        hits = search(conn, validate_query(query), now=ctx.now, limit=SEARCH_LIMIT, include_dormant=True)
        ids = [c.memory_id for c in hits.claims]
        if not ids:
            return [], False
        clauses.append(f"id IN ({','.join('?' * len(ids))})")
        params.extend(ids)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else "WHERE 1=1"
    mine, visible = visible_clause(conn)  # never another member's personal claims
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories {where}{mine} ORDER BY updated_at DESC, id DESC LIMIT ?",
        (*params, *visible, SCAN_LIMIT),
    ).fetchall()
    found = [m for m in (memory_from_row(r) for r in rows) if _matches(m, ctx, aging, basis)]
    return found, len(rows) == SCAN_LIMIT


def stale_here(conn: DbConn, ctx: PageContext, memories: list[Memory]) -> dict[str, str]:
    """Of ``memories``, those the checkout of the page's directory has outgrown, with their line."""
    import os

    from memory_core.reports.stale_claims import stale_among

    try:
        directory = os.getcwd()
    except OSError:
        return {}
    return stale_among(conn, [(m.id, m.origin, m.content) for m in memories], directory, ctx.home, ctx.now)


def _standing_section(conn: DbConn, ctx: PageContext) -> str:
    """The standing digest a session in the page's directory would start with (docs/standing.md)."""
    import json
    import os

    from memory_core.reports.standing_view import standing_for

    try:
        result = standing_for(conn, ctx.home, os.getcwd(), ctx.now)
    except OSError:
        return ""
    if not result.digest:
        return (
            f'<section class="standing"><h2>Standing digest</h2><p class="muted small">A session in '
            f"{e(result.project)} starts with no conventions.</p></section>"
        )
    items = []
    for line in result.digest.splitlines()[2:-1]:
        row = json.loads(line)
        text = link("/memory/" + row["id"], _excerpt(row["text"], 160))
        items.append(f"<li>{text} <span class=tag>{e(row['kind'])}</span></li>")
    left_out = sum(1 for d in result.decisions if d.get("verdict") != "shown")
    return (
        f'<section class="standing"><h2>Standing digest</h2><p class="muted small">A session in '
        f"{e(result.project)} starts with these {len(items)} conventions ({len(result.digest.encode('utf-8'))} bytes; "
        f"{left_out} more left out: <code>memevo explain --session-start</code> says why).</p>"
        f"<ul>{''.join(items)}</ul></section>"
    )


def memories_page(ctx: PageContext) -> Page:
    asked = ctx.param("page", "1")
    number = max(1, int(asked)) if asked.isascii() and asked.isdigit() else 1
    checkout = ctx.param("checkout")
    if checkout and checkout not in CHECKOUT:
        raise UsageError(f"unknown checkout {checkout!r}; choose one of: {', '.join(CHECKOUT)}")
    with ctx.store() as store:
        origins = _origins(store.conn)
        found, cut = find_memories(store.conn, ctx)
        stale = stale_here(store.conn, ctx, found)
        if checkout:
            found = [m for m in found if (m.id in stale) == (checkout == "stale")]
        shown = found[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
        owners = others_owners(store.conn, "memories", [m.id for m in shown])
        standing = _standing_section(store.conn, ctx)
    form = (
        '<form class="filters" method="get" action="/" role="search">'
        f'<label for="q">Search<input type="search" id="q" name="q" value="{e(ctx.param("q"))}" '
        'placeholder="words from a memory (press / to focus)"></label>'
        + _select("project", "Project", origins, ctx.param("project"))
        + _select("kind", "Kind", KINDS, ctx.param("kind"))
        + _select("status", "Status", MEMORY_STATUSES, ctx.param("status"))
        + _select("evidence", "Evidence", BASES, ctx.param("evidence"))
        + _select("aging", "Aging", AGING, ctx.param("aging"))
        + _select("checkout", "Checkout", CHECKOUT, checkout)
        + '<button type="submit" class="primary">Show</button></form>'
    )
    if not shown:
        table = '<p class="muted">No memory matches.</p>'
    else:
        rows = "".join(
            "<tr>"
            f"<td>{link('/memory/' + m.id, _excerpt(m.content, 140))}{owner_tag(owners.get(m.id))}</td>"
            f"<td>{e(m.kind)}</td>"
            f'<td><span class="tag {e(m.status)}">{e(m.status)}</span>'
            f"{' <span class=tag>pinned</span>' if m.pinned else ''}"
            f"{' <span class=tag>provisional</span>' if m.provisional else ''}"
            + (f' <span class="tag stale" title="{e(stale[m.id])}">stale</span>' if m.id in stale else "")
            + "</td>"
            f"<td>{e(m.evidence.basis if m.evidence else 'unknown')}</td>"
            f"<td>{e(aging_of(m, ctx.now))}</td>"
            f'<td class="small">{e(m.origin)}</td>'
            f'<td class="small">{when(m.updated_at)}</td>'
            "</tr>"
            for m in shown
        )
        table = (
            f'<p class="muted">{len(found)} memories{" (the newest " + str(SCAN_LIMIT) + " scanned)" if cut else ""}, '
            "newest first.</p>"
            '<table><caption class="skip">Memories</caption><thead><tr><th scope="col">Memory</th>'
            '<th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Evidence</th>'
            '<th scope="col">Aging</th><th scope="col">Project</th><th scope="col">Updated</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )
    pager = ""
    if len(found) > number * PAGE_SIZE:
        pager = "<p>" + link("/", "Next page", **{**ctx.query, "page": number + 1}) + "</p>"
    return "Memories", standing + form + table + pager


def owner_tag(owner: str | None) -> str:
    """Whose another member's shared claim is (nothing for one's own)."""
    return "" if owner is None else f' <span class="tag owner">shared by {e(owner)}</span>'


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def review_page(ctx: PageContext) -> Page:
    from memory_core.controls.review import review_report

    with ctx.store() as store:
        report = review_report(store.conn)
    items: list[dict[str, Any]] = report["items"]
    if not items:
        return "Review", "<p>Nothing to review: no learning since the last review.</p>" + _review_note(ctx)
    blocks = []
    for item in items:
        claim, old = item["claim"], item["old"]
        if old is not None:
            diff = (
                f'<p class="diff-old"><span class="skip">old: </span>{e(old["content"])}</p>'
                f'<p class="diff-new"><span class="skip">new: </span>{e(claim["content"])}</p>'
            )
        else:
            diff = f'<p class="diff-new">{e(claim["content"])}</p>'
        now_status = item["status_now"]
        live = now_status in ("active", "conflicted")
        buttons = action_form(
            "/review/approve", "Approve", ctx.csrf, back="/review", fields=hidden("item", item["key"])
        )
        if live:
            buttons += f'<a href="/memory/{e(claim["id"])}#correct">Correct</a>'
            buttons += action_form(
                f"/memory/{claim['id']}/forget",
                "Forget",
                ctx.csrf,
                back="/review",
                css="danger",
                confirm="Forget this memory? (undo from its history)",
            )
        blocks.append(
            f'<section class="card" aria-label="{e(item["change"])} {e(claim["id"])}">'
            f'<p><span class="tag">{e(item["change"])}</span> {link("/memory/" + claim["id"], claim["id"])}'
            f"{owner_tag(claim.get('owner'))} "
            f'<span class="muted">{e(claim["kind"])}, {e(claim["evidence"] or "unknown")}, learned {when(item["at"])} '
            f"by {e(item['actor'])}{', ' + e(item['by']) if item.get('by') else ''}; "
            f'now <span class="tag {e(now_status)}">{e(now_status)}</span></span></p>'
            f'{diff}<div class="row-actions">{buttons}</div></section>'
        )
    older = report["events_pending"] - report["events_shown"]
    header = (
        f"<p>{len(items)} change(s) since the last review"
        + (f" (reviewed through event {report['reviewed_through']})" if report["reviewed_through"] else "")
        + "."
        + (f" {older} older learning events are not shown; Approve all covers them." if older > 0 else "")
        + "</p>"
        + action_form(
            "/review/approve-all",
            "Approve all",
            ctx.csrf,
            back="/review",
            css="primary",
            fields=hidden("through", report["through"]),
        )
    )
    return "Review", header + "".join(blocks) + _review_note(ctx)


def _review_note(ctx: PageContext) -> str:
    state = "on" if ctx.settings.review_before_recall else "off"
    return (
        f'<p class="muted small">review_before_recall is {state}: '
        + (
            "claims a model learned are recalled only once approved."
            if state == "on"
            else "recall offers learned claims at once."
        )
        + " Approving marks a change as seen; it does not change the memory.</p>"
    )
