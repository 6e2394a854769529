"""What `memevo status` reports: a plain dict, rendered by the CLI."""

from __future__ import annotations

from typing import Any

from memory_core import migrations
from memory_core.integrity import check_integrity
from memory_core.records import KINDS, MEMORY_STATUSES
from memory_core.store import Store


def memory_counts(store: Store) -> dict[str, Any]:
    conn = store.conn
    by_kind = dict.fromkeys(KINDS, 0)
    by_status = dict.fromkeys(MEMORY_STATUSES, 0)
    for kind, status, n in conn.execute(
        "SELECT kind, status, COUNT(*) FROM memories GROUP BY kind, status"
    ):
        by_kind[kind] = by_kind.get(kind, 0) + n
        by_status[status] = by_status.get(status, 0) + n
    return {"total": sum(by_kind.values()), "by_kind": by_kind, "by_status": by_status}


def job_counts(store: Store) -> dict[str, int]:
    """Jobs by state; ``retrying`` is a pending job that has failed before."""
    counts = {"pending": 0, "leased": 0, "retrying": 0, "paused": 0, "done": 0, "retired": 0}
    for state, failing, n in store.conn.execute(
        "SELECT state, consecutive_failures > 0, COUNT(*) FROM sources GROUP BY 1, 2"
    ):
        key = "retrying" if state == "pending" and failing else str(state)
        counts[key] = counts.get(key, 0) + n
    return counts


def build_status(store: Store, home: str) -> dict[str, Any]:
    """The base report; other modules add sections to it."""
    integrity = check_integrity(store.conn)
    return {
        "state_dir": home,
        "schema_version": store.schema_version(),
        "supported_schema_version": migrations.SCHEMA_VERSION,
        "memories": memory_counts(store),
        "jobs": job_counts(store),
        "integrity": integrity,
        "ok": integrity["ok"],
    }
