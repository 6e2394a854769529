"""The learning log: what each turn's capture decided, for `memevo learning`.

One JSON line per turn in ``logs/learning.jsonl`` in the state dir: when, which agent and
origin, a short sanitized excerpt of the user's message, and for the user statement and
the progress observation whether a source was captured (its id, nominated targets,
observation counts) or why not (a reason code). No message bodies, tool output or secrets
are stored: an excerpt is sanitized and at most :data:`EXCERPT_CHARS` characters.

The log is bounded (:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes, oldest dropped),
private (0600) and only ever read by `memevo learning`: it is never learning input.
Writing it never fails the hook: a problem here is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from memory_core.sanitize import redact_clipped, strip_controls
from memory_core.store.connection import ensure_private_dir

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


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def append_entry(home: Path, entry: dict[str, Any]) -> None:
    """Append one turn's decisions, trimming the oldest beyond the bounds. Never raises."""
    try:
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
            return
        logs = ensure_private_dir(home / "logs")
        path = logs / LOG_NAME
        with _locked(path):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            os.chmod(path, 0o600)
            if path.stat().st_size > MAX_BYTES or _too_many_lines(path):
                _trim(path)
    except Exception:  # the log is diagnostics: it must never cost a capture
        pass


def _too_many_lines(path: Path) -> bool:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle) > MAX_LINES


def _trim(path: Path) -> None:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-MAX_LINES:]):
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES * 3 // 4:
            break
        kept.append(line)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in reversed(kept)))
    os.replace(temporary, path)


def read_entries(home: Path, limit: int) -> list[dict[str, Any]]:
    """The last ``limit`` entries, newest first (unreadable lines skipped)."""
    path = log_path(home)
    if limit <= 0 or not path.is_file():
        return []
    entries: list[dict[str, Any]] = []
    for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            entries.append(value)
            if len(entries) == limit:
                break
    return entries
