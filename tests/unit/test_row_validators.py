"""The recall hook reads claim rows without the record models (``recall.rows``); the record
model (``store.memories.memory_from_row``) is the full check. These tests keep the two in
step: the lean reader never accepts a row the model rejects for a reason it checks, and
on a valid row both read the same values."""

from __future__ import annotations

import json

import pytest

from memory_core.errors import CorruptRecordError
from memory_core.recall.rows import _claim
from memory_core.records import Evidence, Feedback, Memory, VerdictSlot
from memory_core.store.tables.memories import memory_from_row
from tests.factories import make_memory


def row_of(memory: Memory) -> tuple:
    return (
        memory.id,
        memory.origin,
        memory.kind,
        memory.status,
        memory.content_hash,
        memory.updated_at,
        memory.model_dump_json(),
    )


def with_body(row: tuple, change) -> tuple:
    body = json.loads(row[6])
    change(body)
    return (*row[:6], json.dumps(body))


VALID = [
    make_memory(),
    make_memory("Deploys go out on Tuesdays", kind="preference", pinned=True),
    make_memory("The API listens on port 8080", evidence=None, source_id=None),
    make_memory(
        "Use pnpm, not npm", feedback=Feedback(accuracy=VerdictSlot(verdict="accurate", at=1.0, source_id="b" * 24))
    ),
    make_memory(
        "Staging runs on port 5433",
        evidence=Evidence(basis="user_statement", method="model", source_id="a" * 24, at=5.0),
    ),
]

BASE = row_of(make_memory())


def _set(key: str, value: object):
    return lambda body: body.__setitem__(key, value)


CORRUPT = {
    "body not JSON": (*BASE[:6], "{not json"),
    "body not an object": (*BASE[:6], json.dumps(["a list"])),
    "content missing": with_body(BASE, lambda body: body.pop("content")),
    "content empty": with_body(BASE, _set("content", "")),
    "content not text": with_body(BASE, _set("content", 42)),
    "status column disagrees": (*BASE[:3], "forgotten", *BASE[4:]),
    "origin column disagrees": (BASE[0], "/elsewhere", *BASE[2:]),
    "kind column disagrees": (*BASE[:2], "preference", *BASE[3:]),
    "hash column disagrees": (*BASE[:4], "0" * 64, *BASE[5:]),
    "updated_at column disagrees": (*BASE[:5], BASE[5] + 1, BASE[6]),
    "id column disagrees": ("f" * 24, *BASE[1:]),
    "evidence not an object": with_body(BASE, _set("evidence", "summary")),
    "evidence source not text": with_body(BASE, lambda body: body["evidence"].__setitem__("source_id", 7)),
    "feedback accuracy not an object": with_body(BASE, _set("feedback", {"utility": None, "accuracy": "bad"})),
    "source id not text": with_body(BASE, _set("source_id", 12)),
}


@pytest.mark.parametrize("memory", VALID, ids=lambda m: m.content[:20])
def test_both_readers_accept_a_valid_row_and_read_the_same_values(memory: Memory) -> None:
    row = row_of(memory)
    model, lean = memory_from_row(row), _claim(row)
    evidence = model.evidence
    accuracy = model.feedback.accuracy
    assert (lean.memory_id, lean.origin, lean.kind, lean.status, lean.content, lean.updated_at, lean.pinned) == (
        model.id,
        model.origin,
        model.kind,
        model.status,
        model.content,
        model.updated_at,
        model.pinned,
    )
    assert lean.source_id == model.source_id
    assert (lean.evidence_source_id, lean.basis, lean.method) == (
        (evidence.source_id, evidence.basis, evidence.method) if evidence else (None, None, None)
    )
    assert lean.accuracy == (accuracy.verdict if accuracy else None)


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_row_the_lean_reader_rejects_is_rejected_by_the_model_too(name: str) -> None:
    row = CORRUPT[name]
    with pytest.raises((ValueError, TypeError, AttributeError)):
        _claim(row)
    with pytest.raises(CorruptRecordError):
        memory_from_row(row)
