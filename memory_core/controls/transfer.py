"""Export and import as JSON lines.

An export holds one object per line, each with a ``type``:

* ``{"type":"memory","record":{…}}`` — every claim, tombstones included, oldest update first;
* ``{"type":"blocked","record":{"origin","content_hash","created_at","reason"}}`` — every
  suppressed content hash, so forgotten content stays forgotten after a move;
* ``{"type":"event","record":{…}}`` — every event, oldest first.

Keys inside ``record`` are sorted and separators are compact, so the same records always
export to the same bytes.

An import accepts such an export, or plain claim lines
``{"kind","content","origin","source_id","created_at","search_terms"}`` (only ``kind`` and
``content`` are required; a missing origin is ``legacy``). Every line is validated before
anything is written. Imports never overwrite: a record whose id is already stored is left
as it is, which also makes importing the same file twice add nothing. Claims keep unknown
evidence. Events of an export are history of another database and are not replayed; the
import writes one event of its own listing the records it added, so it can be undone.

A team member's import gives each personal claim the id that member would give it
(memory_core.store.tables.claim_ids), and links between the file's claims (``replaces``,
``replaced_by``) follow, so two members importing the same file get a claim each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memory_core import ids
from memory_core.errors import ImportFormatError, short_error
from memory_core.privacy.sanitize import sanitize_text
from memory_core.records import KINDS, Memory
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import read_snapshot_begin
from memory_core.store.schema.owners import PERSONAL, SHARED, claim_scope, hidden_claim_ids
from memory_core.store.tables.changes import ChangeSet
from memory_core.store.tables.claim_ids import claim_id, id_owner
from memory_core.store.tables.events import event_from_row, iter_event_rows
from memory_core.store.tables.memories import get_memory, iter_memory_rows, memory_from_row
from memory_core.store.tables.suppression import block, blocked_rows, is_blocked

LEGACY_ORIGIN = "legacy"
CLAIM_FIELDS = frozenset({"kind", "content", "origin", "source_id", "created_at", "search_terms"})
MAX_SEARCH_TERMS = 8
SEARCH_TERM_CHARS = (2, 64)


def _line(kind: str, record: dict[str, Any]) -> str:
    body = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return f'{{"type":"{kind}","record":{body}}}'


def export_lines(conn: DbConn) -> Iterator[str]:
    """Every claim, block and event as JSON lines (without newlines), from one snapshot.

    Rows are validated as they are read; a corrupt row stops the export with its id.
    """
    own_snapshot = not conn.in_transaction
    if own_snapshot:
        # One read transaction, so claims and events come from the same moment even while
        # other processes keep writing.
        conn.execute(read_snapshot_begin(conn))
    try:
        # Another member's personal claims, and the history that holds them, stay theirs.
        hidden = hidden_claim_ids(conn)
        for row in iter_memory_rows(conn):
            if row[0] not in hidden:
                yield _line("memory", memory_from_row(row).model_dump(mode="json"))
        for origin, chash, created_at, reason in blocked_rows(conn):
            yield _line(
                "blocked", {"origin": origin, "content_hash": chash, "created_at": created_at, "reason": reason}
            )
        for row in iter_event_rows(conn):
            event = event_from_row(row)
            if not hidden or not any(m.id in hidden for m in event.before + event.after):
                yield _line("event", event.model_dump(mode="json"))
    finally:
        if own_snapshot and conn.in_transaction:
            conn.execute("ROLLBACK" if is_postgres(conn) else "COMMIT")


@dataclass(frozen=True)
class _Block:
    origin: str
    content_hash: str
    created_at: float
    reason: str


@dataclass
class ImportReport:
    """What an import did."""

    added: int = 0
    already_present: int = 0
    blocked_skipped: int = 0
    blocks_added: int = 0
    events_skipped: int = 0
    event_id: int | None = None
    added_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The report for ``--json``."""
        return {
            "added": self.added,
            "already_present": self.already_present,
            "blocked_skipped": self.blocked_skipped,
            "blocks_added": self.blocks_added,
            "events_skipped": self.events_skipped,
            "event_id": self.event_id,
        }


def _bad(number: int, why: str) -> ImportFormatError:
    return ImportFormatError(f"line {number}: {why}; fix that line and import again (nothing was written)")


def _search_terms(value: Any, number: int) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise _bad(number, "search_terms must be a list of strings")
    terms = [sanitize_text(t, 256) for t in value]
    low, high = SEARCH_TERM_CHARS
    if len(terms) > MAX_SEARCH_TERMS or any(not low <= len(t) <= high for t in terms):
        raise _bad(number, f"search_terms: at most {MAX_SEARCH_TERMS}, each {low}-{high} characters")
    return terms


def _claim(data: dict[str, Any], number: int, now: float) -> Memory:
    unknown = set(data) - CLAIM_FIELDS
    if unknown:
        raise _bad(number, f"unknown field {sorted(unknown)[0]!r}")
    kind, content = data.get("kind"), data.get("content")
    if kind not in KINDS:
        raise _bad(number, f"kind must be one of {', '.join(KINDS)}")
    if not isinstance(content, str) or not sanitize_text(content):
        raise _bad(number, "content must be non-empty text")
    content = sanitize_text(content)
    origin = data.get("origin", LEGACY_ORIGIN)
    if not isinstance(origin, str) or not origin.strip():
        raise _bad(number, "origin must be non-empty text")
    source_id = data.get("source_id")
    if source_id is not None and (not isinstance(source_id, str) or not source_id):
        raise _bad(number, "source_id must be text")
    created_at = data.get("created_at", now)
    if isinstance(created_at, bool) or not isinstance(created_at, int | float):
        raise _bad(number, "created_at must be a number of seconds since the epoch")
    terms = _search_terms(data.get("search_terms"), number)
    try:
        return Memory(
            id=ids.memory_id(origin, kind, content),
            origin=origin,
            kind=kind,
            content=content,
            content_hash=ids.content_hash(content),
            search_terms=terms,
            source_id=source_id,
            evidence=None,
            created_at=float(created_at),
            updated_at=float(created_at),
        )
    except ValidationError as exc:
        raise _bad(number, short_error(exc)) from None


def _exported_block(record: Any, number: int) -> _Block:
    if not isinstance(record, dict) or set(record) != {"origin", "content_hash", "created_at", "reason"}:
        raise _bad(number, "a blocked record needs exactly origin, content_hash, created_at, reason")
    origin, chash, at, reason = (record[k] for k in ("origin", "content_hash", "created_at", "reason"))
    if not (
        isinstance(origin, str)
        and origin
        and isinstance(chash, str)
        and chash
        and isinstance(reason, str)
        and isinstance(at, int | float)
        and not isinstance(at, bool)
    ):
        raise _bad(number, "a blocked record has a field of the wrong type")
    return _Block(origin, chash, float(at), reason)


def parse_lines(lines: Iterable[str], now: float) -> tuple[list[Memory], list[_Block], int]:
    """Validate every line; returns claims, blocks and the number of event lines skipped.

    Raises :class:`ImportFormatError` naming the first bad line (1-based). Blank lines are
    ignored. ``now`` is the creation time of claims that do not say when they were made.
    """
    memories: list[Memory] = []
    blocks: list[_Block] = []
    events = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise _bad(number, f"not valid JSON ({exc.args[0] if exc.args else exc})") from None
        if not isinstance(data, dict):
            raise _bad(number, "expected a JSON object")
        if "type" not in data:
            memories.append(_claim(data, number, now))
            continue
        if set(data) != {"type", "record"}:
            raise _bad(number, "an exported line has exactly the keys type and record")
        kind, record = data["type"], data["record"]
        if kind == "memory":
            try:
                memories.append(Memory.model_validate(record))
            except ValidationError as exc:
                raise _bad(number, short_error(exc)) from None
        elif kind == "blocked":
            blocks.append(_exported_block(record, number))
        elif kind == "event":
            if not isinstance(record, dict):
                raise _bad(number, "an event record must be an object")
            events += 1
        else:
            raise _bad(number, f"unknown type {kind!r} (expected memory, blocked or event)")
    return memories, blocks, events


def _with_claim_ids(memories: list[Memory], owner: str | None) -> list[Memory]:
    """``memories`` under the ids their importer gives them: unchanged for the store's owner
    (``owner`` None), a member's own for the personal claims a member imports."""
    if owner is None:
        return memories
    new_ids = {
        m.id: claim_id(owner, m.origin, m.kind, m.content)
        for m in memories
        if claim_scope(m.kind, m.origin, m.content) == PERSONAL
    }

    def linked(target: str | None) -> str | None:
        return new_ids.get(target, target) if target is not None else None

    return [
        m.model_copy(
            update={"id": new_ids.get(m.id, m.id), "replaces": linked(m.replaces), "replaced_by": linked(m.replaced_by)}
        )
        for m in memories
    ]


def import_file(conn: DbConn, lines: Iterable[str], now: float) -> ImportReport:
    """Validate ``lines`` completely, then add what is new (inside the caller's transaction).

    Content blocked in its origin *before* this import is skipped and counted; blocks in
    the file apply from this import on. Nothing is ever overwritten.
    """
    changes = ChangeSet(conn, "import")
    memories, blocks, events = parse_lines(lines, now)
    memories = _with_claim_ids(memories, id_owner(conn))
    report = ImportReport(events_skipped=events)
    added: list[Memory] = []
    seen: set[str] = set()
    for memory in memories:
        if memory.id in seen or get_memory(conn, memory.id) is not None:
            report.already_present += 1
            continue
        seen.add(memory.id)
        # A tombstone revives nothing, so it is kept even when its content is blocked here.
        if memory.status in ("active", "conflicted") and is_blocked(conn, memory.origin, memory.content_hash):
            report.blocked_skipped += 1
            continue
        added.append(memory)
    for memory in added:
        changes.write(None, memory)
    # A block is shared when the file holds a shared claim of that content (the export's
    # block lines name no scope); else it is the importer's own.
    shared = {
        (m.origin, m.content_hash)
        for m in memories
        if claim_scope(m.kind, m.origin, m.content, m.search_terms) == SHARED
    }
    for item in blocks:
        scope = SHARED if (item.origin, item.content_hash) in shared else PERSONAL
        report.blocks_added += block(conn, item.origin, item.content_hash, item.created_at, item.reason, scope)
    report.added = len(added)
    report.added_ids = [m.id for m in added]
    report.event_id = changes.commit(
        at=now,
        actor="import",
        operation="import",
        source_id=ids.random_id(),
        manual=True,
        details={key: value for key, value in report.as_dict().items() if key != "event_id"},
    )
    return report
