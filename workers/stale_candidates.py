"""Stale claims offered to the model as candidates to retire, when a new source of their project arrives.

The hooks note each claim they left out as stale with the checkout they looked in
(memory_core.recall.stale_record). Consolidating a source of that project, the worker looks
in the checkout again: a claim still naming something the checkout lacks joins the
candidates, marked ``stale`` with what is missing, so the model may replace it when the
source shows what took its place. A claim whose checkout is not on this machine, or whose
file came back, is not offered. A progress source is never offered one: it may only update
the project states nominated for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_core.records import Memory, Source
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import visible_clause
from memory_core.store.tables.memories import memory_from_row
from memory_core.store.tables.origin_aliases import project_origins

MAX_OFFERED = 8


def with_stale_candidates(
    conn: DbConn, home: Path, source: Source, candidates: list[Memory]
) -> tuple[list[Memory], dict[str, list[str]]]:
    """``candidates`` with the project's noted stale claims that are still stale, and what
    each of those (offered or already a candidate) names that is gone."""
    if source.source_type == "progress":
        return candidates, {}
    from memory_core.recall.stale_record import read_stale

    noted = read_stale(home)
    if not noted:
        return candidates, {}
    from memory_core.recall.checkout_check import CheckoutView, forget_answers, missing_names

    group = set(project_origins(conn, source.origin))
    wanted = [memory_id for memory_id, entry in noted.items() if entry["origin"] in group][: MAX_OFFERED * 4]
    if not wanted:
        return candidates, {}
    forget_answers()  # a long-lived worker looks at the checkout as it is now
    mine, params = visible_clause(conn)
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({marks}) AND status = 'active'{mine}",
        [*wanted, *params],
    ).fetchall()
    stale: dict[str, list[str]] = {}
    added: list[Memory] = []
    known = {m.id for m in candidates}
    for row in rows:
        memory = memory_from_row(tuple(row))
        root = str(noted[memory.id]["root"])
        view = CheckoutView.of(root) if os.path.isdir(root) else None
        missing = missing_names(view, memory.content) if view is not None else []
        if not missing:
            continue
        stale[memory.id] = missing
        if memory.id not in known and len(added) < MAX_OFFERED:
            added.append(memory)
    from memory_core.consolidation.prompt import CANDIDATE_LIMIT

    # The model sees at most CANDIDATE_LIMIT candidates: the stale ones keep their places.
    return [*candidates[: CANDIDATE_LIMIT - len(added)], *added], stale
