"""Loading the few chosen claims without the pydantic models.

Recall runs in a short-lived process on every user turn; importing the record models costs
more than the whole lookup. So the (at most ten) chosen rows are read as JSON and checked
here with the checks of :func:`memory_core.store.tables.memories.memory_from_row` that matter for
showing a claim: the indexed columns must agree with the body and every field the digest
prints must have its type (``memevo status`` runs the full validation). A row that fails
is skipped and named in the diagnostics, never shown and never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import MEMORY_COLUMNS
from memory_core.store.schema.owners import visible_clause


# Fields given as types, not annotations: under ``from __future__ import annotations`` a
# ``NamedTuple``'s annotations are strings that ``typing`` compiles one by one, on every
# start of the per-turn hook (docs/hooks.md, "Cost").
class ClaimRow(
    NamedTuple(
        "ClaimRow",
        [
            ("memory_id", str),
            ("origin", str),
            ("kind", str),
            ("status", str),
            ("content", str),
            ("updated_at", float),
            ("pinned", bool),
            ("source_id", str | None),
            ("evidence_source_id", str | None),
            ("basis", str | None),
            ("method", str | None),
            ("accuracy", str | None),
        ],
    )
):
    """What recall shows of a stored claim."""

    __slots__ = ()

    @property
    def shown_source_id(self) -> str | None:
        """The current evidence's source when known, else the original source."""
        return self.evidence_source_id or self.source_id

    @property
    def evidence_label(self) -> str:
        return f"{self.basis}/{self.method}" if self.basis and self.method else "unknown"


def _text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError("expected text")


def _claim(row: tuple) -> ClaimRow:
    row_id, origin, kind, status, chash, updated_at, body = row
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("body is not an object")
    content = data.get("content")
    if not isinstance(content, str) or not content:
        raise ValueError("no content")
    indexed = (
        data.get("id"),
        data.get("origin"),
        data.get("kind"),
        data.get("status"),
        data.get("content_hash"),
        data.get("updated_at"),
    )
    if indexed != (row_id, origin, kind, status, chash, updated_at):
        raise ValueError("indexed columns disagree with body")
    evidence = data.get("evidence") or {}
    feedback = data.get("feedback") or {}
    accuracy = feedback.get("accuracy") or {}
    if not isinstance(evidence, dict) or not isinstance(accuracy, dict):
        raise ValueError("malformed evidence or feedback")
    return ClaimRow(
        memory_id=row_id,
        origin=origin,
        kind=kind,
        status=status,
        content=content,
        updated_at=float(updated_at),
        pinned=bool(data.get("pinned", False)),
        source_id=_text(data.get("source_id")),
        evidence_source_id=_text(evidence.get("source_id")),
        basis=_text(evidence.get("basis")),
        method=_text(evidence.get("method")),
        accuracy=_text(accuracy.get("verdict")),
    )


def load_claims(conn: DbConn, ids: Sequence[str], notes: list[str]) -> dict[str, ClaimRow]:
    """The active claims among ``ids``; anything skipped is explained in ``notes``."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    loaded: dict[str, ClaimRow] = {}
    mine, params = visible_clause(conn)  # another member's personal claims are never recalled
    for row in conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({marks}){mine}", [*ids, *params]):
        try:
            claim = _claim(tuple(row))
        except (ValueError, TypeError, AttributeError):
            notes.append(f"skipped corrupt claim {row[0]}; run `memevo status`")
            continue
        if claim.status != "active":
            notes.append(f"skipped {claim.memory_id}: index out of step (status {claim.status})")
            continue
        loaded[claim.memory_id] = claim
    return loaded
