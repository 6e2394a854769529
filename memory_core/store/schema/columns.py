"""The column lists every reader and writer of the tables shares (standard library only,
so the per-turn hooks can read and write rows without the record models)."""

from __future__ import annotations

MEMORY_COLUMNS = "id, origin, kind, status, content_hash, updated_at, body"
EVENT_COLUMNS = "id, at, actor, operation, reason, source_id, body"

SOURCE_JOB_FIELDS: tuple[str, ...] = (
    "state",
    "attempt",
    "consecutive_failures",
    "next_due_at",
    "lease_owner",
    "lease_expires_at",
    "last_error_code",
    "last_failure_at",
    "origin_generation",
    "completed_at",
    "last_error_reason",
    "forced_at",
)
SOURCE_BODY_FIELDS: tuple[str, ...] = ("text", "agent", "session_id", "target_ids")
SOURCE_COLUMNS = "id, origin, source_type, dedupe_key, created_at, body, " + ", ".join(SOURCE_JOB_FIELDS)
