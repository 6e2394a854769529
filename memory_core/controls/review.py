"""The review inbox: what automatic learning changed since a person last reviewed, and
approving it.

Items come from the events written by learning (actor ``model`` for consolidation,
``local`` for a summary's self-labelled lines) after the review watermark
(:mod:`memory_core.store.tables.review_marks`), newest first, as a diff:

* ``new``: a claim that did not exist before the event;
* ``replaced``: a claim that took the place of an older one (``old`` -> ``new``);
* ``quarantined``: a claim the event left ``conflicted`` (a variant that contradicts what
  is known).

Confirmations, refreshed dates and new aliases are not items: they change no content.

Approving changes no claim (the claim, its evidence and its history stay as learning left
them): it records that a person has seen the change, which takes it out of the inbox and,
with ``review_before_recall`` on, lets recall offer it (memory_core/reports/review_gate.py).
Correcting or forgetting an item are the ordinary manual controls, with their events and undo.

On a team store (docs/team.md) a person reviews what learning changed in the claims they
may see: their own and the team's shared ones, whoever's worker learned them. Another
member's personal claims are no items (and cannot be approved: they are answered as if
they did not exist); a replacement whose old claim is such a claim shows as ``new``. An
item of another member's claim says whose it is (``owner``), and one learned by another
member's worker says by whom (``by``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memory_core.errors import NotFoundError, UsageError
from memory_core.records import Event, Memory
from memory_core.store.engines.connection import in_chunks, require_transaction
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import EVENT_COLUMNS
from memory_core.store.schema.owners import hidden_claim_ids, others_owners
from memory_core.store.tables.events import event_from_row
from memory_core.store.tables.review_marks import (
    MAX_APPROVED,
    ReviewMarks,
    item_key,
    read_review_marks,
    write_review_marks,
)

LEARNING_ACTORS = ("model", "local")
MAX_EVENTS = 500  # events read per review; older ones are counted, and covered by approve-all


def _claim(memory: Memory) -> dict[str, Any]:
    evidence = memory.evidence
    return {
        "id": memory.id,
        "kind": memory.kind,
        "status": memory.status,
        "origin": memory.origin,
        "content": memory.content,
        "provisional": memory.provisional,
        "evidence": None if evidence is None else f"{evidence.basis}/{evidence.method}",
        "source_id": memory.source_id,
    }


def event_items(event: Event) -> list[dict[str, Any]]:
    """The review items of one learning event (see the module docstring)."""
    before = {m.id: m for m in event.before}
    replaced_by: dict[str, Memory] = {}
    for m in event.after:
        if m.id in before and m.status == "superseded" and m.replaced_by:
            replaced_by[m.replaced_by] = before[m.id]
    items: list[dict[str, Any]] = []
    for m in event.after:
        old = before.get(m.id)
        if old is not None:
            if m.status == "conflicted" and old.status != "conflicted":
                change = "quarantined"
            else:
                continue
        elif m.status == "conflicted":
            change = "quarantined"
        elif m.id in replaced_by or (m.replaces is not None and m.replaces in before):
            change = "replaced"
            old = replaced_by.get(m.id) or before[str(m.replaces)]
        elif m.status == "superseded":
            continue
        else:
            change = "new"
        items.append(
            {
                "key": item_key(event.id, m.id),
                "event_id": event.id,
                "at": event.at,
                "actor": event.actor,
                "source_id": event.source_id,
                "change": change,
                "claim": _claim(m),
                "old": None if old is None or change != "replaced" else _claim(old),
            }
        )
    return items


def visible_items(items: list[dict[str, Any]], hidden: frozenset[str]) -> list[dict[str, Any]]:
    """``items`` without those of claims in ``hidden`` (another member's personal claims,
    memory_core.store.schema.owners.hidden_claim_ids); a replacement of a hidden claim becomes
    ``new``, so the old claim's content is not shown."""
    if not hidden:
        return items
    kept = []
    for item in items:
        if item["claim"]["id"] in hidden:
            continue
        if item["old"] is not None and item["old"]["id"] in hidden:
            item = {**item, "change": "new", "old": None}
        kept.append(item)
    return kept


def _label_owners(conn: DbConn, items: list[dict[str, Any]]) -> None:
    """Name whose another member's claim is and whose worker learned it (a team store)."""
    owners = others_owners(conn, "memories", sorted({item["claim"]["id"] for item in items}))
    by = others_owners(conn, "events", sorted({item["event_id"] for item in items}))
    for item in items:
        if item["claim"]["id"] in owners:
            item["claim"]["owner"] = owners[item["claim"]["id"]]
        if str(item["event_id"]) in by:
            item["by"] = by[str(item["event_id"])]


def _current_status(conn: DbConn, ids: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for marks, chunk in in_chunks(sorted(set(ids))):
        for memory_id, status in conn.execute(f"SELECT id, status FROM memories WHERE id IN ({marks})", list(chunk)):
            found[str(memory_id)] = str(status)
    return found


def review_report(conn: DbConn, marks: ReviewMarks | None = None) -> dict[str, Any]:
    """The pending items (newest first) with the watermark the page or command shows.

    ``through`` is the newest learning event read: approving all "through" it covers exactly
    what was reported, never an event written after the report was made.
    """
    marks = read_review_marks(conn) if marks is None else marks
    actors = ",".join("?" * len(LEARNING_ACTORS))
    rows = conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE id > ? AND actor IN ({actors}) ORDER BY id DESC LIMIT ?",
        (marks.through, *LEARNING_ACTORS, MAX_EVENTS),
    ).fetchall()
    (total_events,) = conn.execute(
        f"SELECT COUNT(*) FROM events WHERE id > ? AND actor IN ({actors})", (marks.through, *LEARNING_ACTORS)
    ).fetchone()
    hidden = hidden_claim_ids(conn)
    items = [
        item
        for row in rows
        for item in visible_items(event_items(event_from_row(row)), hidden)
        if item["key"] not in marks.approved
    ]
    _label_owners(conn, items)
    status = _current_status(conn, [item["claim"]["id"] for item in items])
    for item in items:
        item["status_now"] = status.get(item["claim"]["id"], "missing")
    return {
        "reviewed_through": marks.through,
        "reviewed_at": marks.reviewed_at,
        "through": int(rows[0][0]) if rows else marks.through,
        "events_pending": int(total_events),
        "events_shown": len(rows),
        "items": items,
    }


def approve(conn: DbConn, names: Iterable[str], now: float) -> list[str]:
    """Approve pending items by item key (``EVENT:ID``) or by memory id (every pending item
    whose new or old claim it is); returns the item keys approved. Inside a transaction."""
    require_transaction(conn, "review approvals")
    wanted = [name.strip() for name in names if name.strip()]
    if not wanted:
        raise UsageError("name at least one memory id or item to approve; see `memevo review`")
    marks = read_review_marks(conn)
    items = review_report(conn, marks)["items"]
    approved: list[str] = []
    for name in wanted:
        matched = [
            item["key"]
            for item in items
            if name in (item["key"], item["claim"]["id"]) or (item["old"] is not None and item["old"]["id"] == name)
        ]
        if not matched:
            raise NotFoundError(f"nothing pending review for {name!r}; `memevo review` lists what is pending")
        approved += [key for key in matched if key not in approved]
    keys = marks.approved | frozenset(approved)
    if len(keys) > MAX_APPROVED:
        raise UsageError(f"more than {MAX_APPROVED} single approvals are pending; use `memevo review --approve-all`")
    write_review_marks(conn, ReviewMarks(marks.through, keys, now))
    return approved


def approve_all(conn: DbConn, through: int | None, now: float) -> dict[str, Any]:
    """Mark every learning event up to ``through`` (default: the newest) as reviewed.

    ``through`` is what the person saw (the page sends the watermark it showed), so a change
    learned after the page was drawn stays pending. It is clamped to the newest learning
    event and never moves the watermark back.
    """
    require_transaction(conn, "review approvals")
    marks = read_review_marks(conn)
    actors = ",".join("?" * len(LEARNING_ACTORS))
    (newest,) = conn.execute(
        f"SELECT COALESCE(MAX(id), 0) FROM events WHERE actor IN ({actors})", LEARNING_ACTORS
    ).fetchone()
    target = int(newest) if through is None else min(int(through), int(newest))
    if through is not None and through < 0:
        raise UsageError("the review watermark is an event id (0 or more)")
    new_through = max(marks.through, target)
    stored = write_review_marks(conn, ReviewMarks(new_through, marks.approved, now))
    return {"reviewed_through": stored.through, "previous": marks.through}
