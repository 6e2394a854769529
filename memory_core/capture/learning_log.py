"""The learning log: what each turn's capture decided, for `memevo learning`.

One JSON line per turn in ``logs/learning.jsonl`` in the state dir: when, which agent and
origin, a short sanitized excerpt of the user's message, and for the user statement and
the progress observation whether a source was captured (its id, nominated targets,
observation counts) or why not (a reason code). No message bodies, tool output or secrets
are stored: an excerpt is sanitized and at most :data:`EXCERPT_CHARS` characters. The
worker adds one line per model call (``"kind": "model_call"``, workers/call_log.py): its
tokens, reported cost and outcome, numbers and codes only.

The log is bounded (:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes, oldest dropped),
private (0600) and only ever read by `memevo learning`: it is never learning input.
Writing it never fails the hook: a problem here is ignored.
"""

from __future__ import annotations

from pathlib import Path

from memory_core.files import jsonl_log
from memory_core.privacy.sanitize import redact_clipped, strip_controls
from memory_core.store.engines.connection import ensure_private_dir

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

LOG_NAME = "learning.jsonl"
MAX_LINES = 500
MAX_BYTES = 256_000
EXCERPT_CHARS = 120
MAX_LINE_BYTES = 4_000

# Reason codes and what `memevo learning` says for them.
REASONS: dict[str, str] = {
    "captured": "captured",
    "no_statement": "no statement to remember",
    "question": "a question, not something to learn",
    "duplicate": "already captured (the same message again)",
    "no_work_request": "no work request from the user",
    "no_work_operation": "no recognised work operation (lookups only)",
    "no_linked_result": "work operations without a linked result",
    "excluded": "only memevo's own operations or its state directory",
    "no_target": "no remembered project state to update",
}


def log_path(home: Path) -> Path:
    return home / "logs" / LOG_NAME


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, sanitized, one-line excerpt."""
    flat = " ".join(redact_clipped(strip_controls(text).lstrip(), 4 * limit).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def append_entry(home: Path, entry: dict[str, Any]) -> None:
    """Append one turn's decisions, trimming the oldest beyond the bounds. Never raises."""
    try:
        line = jsonl_log.encode(entry, MAX_LINE_BYTES)
        if line is None:
            return
        logs = ensure_private_dir(home / "logs")
        path = logs / LOG_NAME
        jsonl_log.append(path, path.with_suffix(".lock"), line, max_bytes=MAX_BYTES, max_lines=MAX_LINES)
    except Exception:  # the log is diagnostics: it must never cost a capture
        pass


def read_entries(home: Path, limit: int) -> list[dict[str, Any]]:
    """The last ``limit`` entries, newest first (unreadable lines skipped)."""
    return jsonl_log.read_last(log_path(home), limit, lambda value: isinstance(value, dict))
