"""Charts drawn on the server as SVG (no script, no other host): learning, injections, queue.

On a team store (docs/team.md) the charts count what the person may see: learning in their
own and the shared claims (what Review lists, memory_core/controls/review.py) and their own
sources in the queue.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from cli.ui.assets import PALETTE
from cli.ui.context import PageContext
from cli.ui.html import e
from memory_core.controls.review import LEARNING_ACTORS, event_items, visible_items
from memory_core.records import KINDS
from memory_core.reports.injection_log import read_injections
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import EVENT_COLUMNS
from memory_core.store.schema.owners import hidden_claim_ids, source_owner_clause
from memory_core.store.tables.events import event_from_row

DAYS = 30
DAY = 86_400.0
MAX_EVENTS = 5_000
MAX_INJECTIONS = 5_000
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 760, 220, 44, 28, 10

Series = dict[str, list[int]]


def day_starts(now: float, days: int = DAYS) -> list[float]:
    """The UTC midnights of the last ``days`` days, oldest first (today last)."""
    today = now - now % DAY
    return [today - DAY * (days - 1 - i) for i in range(days)]


def _bucket(at: float, starts: Sequence[float]) -> int | None:
    index = int((at - starts[0]) // DAY)
    return index if 0 <= index < len(starts) else None


def stacked_bars(title: str, starts: Sequence[float], series: Series) -> str:
    """A stacked bar chart with a legend and the numbers as a table (for screen readers)."""
    count = len(starts)
    totals = [sum(values[i] for values in series.values()) for i in range(count)]
    peak = max([*totals, 1])
    plot_w, plot_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - TOP
    bar_w = plot_w / count
    parts = [
        f'<svg role="img" aria-label="{e(title)}" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
        f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>{e(title)}</title>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - 8}" y2="{TOP + plot_h}"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 8}" text-anchor="end">{peak}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + plot_h}" text-anchor="end">0</text>',
    ]
    for i in range(count):
        y = float(TOP + plot_h)
        for n, (name, values) in enumerate(series.items()):
            if not values[i]:
                continue
            h = plot_h * values[i] / peak
            y -= h
            parts.append(
                f'<rect x="{LEFT + i * bar_w + 1:.1f}" y="{y:.1f}" width="{max(bar_w - 2, 1):.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[n % len(PALETTE)]}"><title>{e(_day(starts[i]))}: {values[i]} {e(name)}</title></rect>'
            )
        if i % 5 == 0 or i == count - 1:
            parts.append(
                f'<text x="{LEFT + i * bar_w + bar_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
                f"{e(_day(starts[i])[5:])}</text>"
            )
    parts.append("</svg>")
    legend = "".join(
        f'<span><svg class="swatch" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" '
        f'fill="{PALETTE[n % len(PALETTE)]}"/></svg>{e(name)}</span>'
        for n, name in enumerate(series)
    )
    rows = "".join(
        f"<tr><td>{e(_day(starts[i]))}</td>{''.join(f'<td class=num>{v[i]}</td>' for v in series.values())}</tr>"
        for i in range(count)
        if totals[i]
    )
    head = "".join(f'<th scope="col" class="num">{e(name)}</th>' for name in series)
    table = (
        f"<details><summary>{e(title)} as a table</summary><table><thead><tr><th scope='col'>Day</th>{head}</tr>"
        f"</thead><tbody>{rows or '<tr><td>no data</td></tr>'}</tbody></table></details>"
    )
    caption = f'<figcaption><strong>{e(title)}</strong> <span class="legend small">{legend}</span></figcaption>'
    return f"<figure>{caption}{''.join(parts)}</figure>{table}"


def _day(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


def learned_per_day(conn: DbConn, starts: Sequence[float]) -> Series:
    """New and replacing claims learning wrote per day, by kind (of those the current person may see)."""
    series: Series = {kind: [0] * len(starts) for kind in KINDS}
    hidden = hidden_claim_ids(conn)
    marks = ",".join("?" * len(LEARNING_ACTORS))
    rows = conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE at >= ? AND actor IN ({marks}) ORDER BY id DESC LIMIT ?",
        (starts[0], *LEARNING_ACTORS, MAX_EVENTS),
    ).fetchall()
    for row in rows:
        event = event_from_row(row)
        index = _bucket(event.at, starts)
        if index is None:
            continue
        for item in visible_items(event_items(event), hidden):
            if item["change"] in ("new", "replaced"):
                series.setdefault(item["claim"]["kind"], [0] * len(starts))[index] += 1
    return series


def injections_per_day(ctx: PageContext, starts: Sequence[float]) -> Series:
    series: Series = {"digests": [0] * len(starts), "lookups": [0] * len(starts)}
    for entry in read_injections(ctx.home, MAX_INJECTIONS, since=starts[0]):
        index = _bucket(float(entry["at"]), starts)
        if index is not None:
            # A standing digest is a digest too: both are put into a session without being asked for.
            series["digests" if entry["kind"] in ("digest", "standing") else "lookups"][index] += 1
    return series


def queue_per_day(conn: DbConn, starts: Sequence[float]) -> Series:
    """Sources waiting at the end of each day (captured, not yet done or retired), and
    sources whose latest failure fell on that day (earlier failures are not kept); the
    current person's sources only."""
    depth, failures = [], []
    mine, owners = source_owner_clause(conn)
    for start in starts:
        end = start + DAY
        (waiting,) = conn.execute(
            "SELECT COUNT(*) FROM sources WHERE created_at < ? AND "
            f"((completed_at IS NULL AND state NOT IN ('done', 'retired')) OR completed_at >= ?){mine}",
            (end, end, *owners),
        ).fetchone()
        (failed,) = conn.execute(
            f"SELECT COUNT(*) FROM sources WHERE last_failure_at >= ? AND last_failure_at < ?{mine}",
            (start, end, *owners),
        ).fetchone()
        depth.append(int(waiting))
        failures.append(int(failed))
    return {"waiting at day's end": depth, "latest failure that day": failures}


def charts_page(ctx: PageContext) -> tuple[str, str]:
    starts = day_starts(ctx.now)
    with ctx.store() as store:
        learned = learned_per_day(store.conn, starts)
        queue = queue_per_day(store.conn, starts)
    queue_depth = {"waiting at day's end": queue["waiting at day's end"]}
    queue_failures = {"latest failure that day": queue["latest failure that day"]}
    body = (
        f'<p class="muted">The last {DAYS} days (UTC).</p>'
        + stacked_bars("Claims learned per day, by kind", starts, learned)
        + stacked_bars("Injections per day", starts, injections_per_day(ctx, starts))
        + stacked_bars("Queue depth per day", starts, queue_depth)
        + stacked_bars("Failures per day", starts, queue_failures)
    )
    return "Charts", body
