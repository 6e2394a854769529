"""Claims written as learning writes them: a ``consolidate`` event by the model."""

from __future__ import annotations

from memory_core.records import Evidence, Memory
from memory_core.store.engines.database import Store
from memory_core.store.tables.changes import ChangeSet
from tests.factories import make_memory


def model_claim(content: str, *, source: str, at: float, kind: str = "fact", origin: str = "/work/app") -> Memory:
    """A claim whose content a model inferred from ``source``."""
    evidence = Evidence(basis="summary", method="model", source_id=source, at=at)
    return make_memory(content, origin=origin, kind=kind, at=at, source_id=source, evidence=evidence, model_id="m")


def learn(store: Store, *claims: Memory, replaced: Memory | None = None, source: str, at: float) -> int:
    """One consolidation event adding ``claims``; with ``replaced``, the first claim takes its place."""
    with store.transaction() as conn:
        changes = ChangeSet(conn, "learning")
        after = list(claims)
        before = []
        if replaced is not None:
            before.append(replaced)
            after.append(replaced.model_copy(update={"status": "superseded", "replaced_by": claims[0].id}))
            after[0] = after[0].model_copy(update={"replaces": replaced.id})
        changes.write_all(before, after)
        event_id = changes.commit(at=at, actor="model", operation="consolidate", source_id=source, manual=False)
    assert event_id is not None
    return event_id
