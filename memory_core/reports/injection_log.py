"""The injection log: every digest memevo gave an agent and every lookup it answered.

One JSON line per injection in ``logs/injections.jsonl`` in the state dir: when, what
(an automatic ``digest`` on a user turn, the ``standing`` digest a session starts with, or a
``lookup`` asked for by a command or tool),
which agent, session and project, which claim ids and how many bytes. Never the prompt or
the query: the specification keeps queries out of the memory database and out of
learning, so this log lives apart from both, is private (0600), bounded
(:data:`MAX_BYTES`, oldest lines dropped) and only read by `memevo log` and `memevo ui`.

Writing it is a plain append from the standard library, cheap enough for the per-turn hook,
and never fails the caller: a problem here is ignored (the digest was already made).
Other callers (an MCP server answering lookups) use :func:`record_injection` too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memory_core.files import jsonl_log

LOG_NAME = "injections.jsonl"
MAX_BYTES = 512_000  # about 2,500 entries; trimmed to three quarters when passed
MAX_LINE_BYTES = 4_000
MAX_CLAIMS = 20
MAX_FIELD_CHARS = 200
KINDS = ("digest", "lookup", "standing")


def log_path(home: Path) -> Path:
    return home / "logs" / LOG_NAME


def project_of(cwd: str | None, home: Path | None = None) -> str | None:
    """The project an injection served, named as capture names it (memory_core.project: the
    repository's remote, a configured name, or the directory); ``home`` is the state dir whose
    config.toml may name projects. Never raises: a log line must not cost the turn."""
    if not cwd:
        return None
    try:
        from memory_core.project import resolve_project

        return resolve_project(os.path.expanduser(cwd), home).origin
    except Exception:
        return os.path.realpath(os.path.expanduser(cwd))


def _field(value: object) -> str | None:
    """A short one-line text (agents' session ids and paths), or ``None``."""
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text[:MAX_FIELD_CHARS] or None


def injection_entry(
    *,
    kind: str,
    at: float,
    agent: str | None,
    session_id: str | None,
    project: str | None,
    claim_ids: list[str] | tuple[str, ...],
    size_bytes: int,
    via: str | None = None,
) -> dict[str, Any]:
    """The line written for one injection (no text of the prompt, query or claims)."""
    if kind not in KINDS:
        raise ValueError(f"unknown injection kind {kind!r}; use one of: {', '.join(KINDS)}")
    return {
        "at": round(float(at), 3),
        "kind": kind,
        "via": _field(via),
        "agent": _field(agent),
        "session": _field(session_id),
        "project": _field(project),
        "claims": [str(c)[:64] for c in claim_ids[:MAX_CLAIMS]],
        "bytes": max(0, int(size_bytes)),
    }


def record_injection(
    home: Path,
    *,
    kind: str,
    at: float,
    agent: str | None,
    session_id: str | None,
    project: str | None,
    claim_ids: list[str] | tuple[str, ...],
    size_bytes: int,
    via: str | None = None,
) -> None:
    """Append one injection to the log, trimming the oldest lines past the bound. Never raises."""
    try:
        entry = injection_entry(
            kind=kind,
            at=at,
            agent=agent,
            session_id=session_id,
            project=project,
            claim_ids=claim_ids,
            size_bytes=size_bytes,
            via=via,
        )
        line = jsonl_log.encode(entry, MAX_LINE_BYTES)
        if line is None:
            return
        logs = home / "logs"
        if not logs.is_dir():
            os.makedirs(logs, mode=0o700, exist_ok=True)
        jsonl_log.append(logs / LOG_NAME, logs / ".injections.lock", line, max_bytes=MAX_BYTES)
    except Exception:  # a log of what was shown must never cost the turn
        pass


def _valid(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("at"), int | float)
        and value.get("kind") in KINDS
        and isinstance(value.get("claims"), list)
        and isinstance(value.get("bytes"), int)
    )


def read_injections(home: Path, limit: int, *, since: float | None = None) -> list[dict[str, Any]]:
    """The last ``limit`` entries, newest first (unreadable lines skipped); with ``since``,
    only those at or after that time."""
    return jsonl_log.read_last(
        log_path(home), limit, lambda value: _valid(value) and (since is None or value["at"] >= since)
    )
