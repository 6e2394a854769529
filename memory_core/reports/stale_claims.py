"""Which claims of a project its checkout has outgrown, and the verdict shown beside a claim.

``memevo check`` lists them, ``memevo status`` counts them for the current project, ``memevo
show``/``explain`` and the web page say of one claim "stale: X no longer exists in <project>
(checked <time>)". Everything is looked up in the checkout at the time of asking
(:mod:`memory_core.recall.checkout_check`); nothing is stored, so a file that comes back
brings its claim back at once. Read-only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.clock import iso
from memory_core.recall.checkout_check import CheckoutView, forget_answers, project_group
from memory_core.recall.named_things import named_things
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import visible_clause

MAX_CLAIMS = 20_000


def stale_line(missing: list[str], project: str, checked_at: float) -> str:
    """The sentence every view shows for a stale claim."""
    return f"stale: {', '.join(missing)} no longer exists in {project} (checked {iso(checked_at)})"


def stale_claims(conn: DbConn, directory: str, home: Path | None, now: float) -> dict[str, Any]:
    """The active claims of ``directory``'s project that name something its checkout lacks.

    ``{"project", "root", "checked_at", "checked", "naming", "stale": [{id, kind, content,
    names, missing, line}]}``; ``root`` is ``None`` (and nothing is stale) outside a checkout.
    """
    forget_answers()  # a command looks again, whatever an earlier lookup of this process saw
    project, group = project_group(conn, directory, home)
    view = CheckoutView.of(directory)
    result: dict[str, Any] = {
        "project": project,
        "root": view.root if view else None,
        "checked_at": now,
        "checked": 0,
        "naming": 0,
        "stale": [],
    }
    if view is None:
        return result
    import json

    mine, params = visible_clause(conn)
    marks = ",".join("?" * len(group))
    rows = conn.execute(
        f"SELECT id, origin, kind, body FROM memories WHERE origin IN ({marks}) AND status = 'active'{mine} "
        "ORDER BY updated_at DESC LIMIT ?",
        [*group, *params, MAX_CLAIMS],
    ).fetchall()
    for memory_id, origin, kind, body in rows:
        result["checked"] += 1
        try:
            content = json.loads(body)["content"]
        except (ValueError, KeyError, TypeError):
            continue
        names = named_things(content)
        if not names:
            continue
        result["naming"] += 1
        missing = [n.describe() for n in names if view.has(n) is False]
        if missing:
            result["stale"].append(
                {
                    "id": memory_id,
                    "origin": origin,
                    "kind": kind,
                    "content": content,
                    "names": [n.describe() for n in names],
                    "missing": missing,
                    "line": stale_line(missing, project, now),
                }
            )
    return result


def claim_staleness(
    conn: DbConn, memory_id: str, origin: str, content: str, directory: str, home: Path | None, now: float
) -> dict[str, Any] | None:
    """What the checkout of ``directory`` says of one claim: ``None`` when the claim is not of
    that project or there is no checkout (not checked); else ``{"stale", "names", "missing",
    "checked_at", "line"}``."""
    project, group = project_group(conn, directory, home)
    if origin not in group:
        return None
    view = CheckoutView.of(directory)
    if view is None:
        return None
    forget_answers()
    names = named_things(content)
    missing = [n.describe() for n in names if view.has(n) is False]
    return {
        "stale": bool(missing),
        "names": [n.describe() for n in names],
        "missing": missing,
        "project": project,
        "checked_at": now,
        "line": stale_line(missing, project, now) if missing else None,
    }


def stale_among(
    conn: DbConn, claims: list[tuple[str, str, str]], directory: str, home: Path | None, now: float
) -> dict[str, str]:
    """Of ``claims`` (``(id, origin, content)``), those of ``directory``'s project its checkout
    has outgrown, each with the line views show ("stale: X no longer exists in …")."""
    view = CheckoutView.of(directory)
    if view is None or not claims:
        return {}
    forget_answers()
    project, group = project_group(conn, directory, home)
    found: dict[str, str] = {}
    for memory_id, origin, content in claims:
        if origin not in group:
            continue
        missing = [n.describe() for n in named_things(content) if view.has(n) is False]
        if missing:
            found[memory_id] = stale_line(missing, project, now)
    return found
