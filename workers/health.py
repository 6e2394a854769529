"""`memevo doctor` checks that cross a process boundary: the huey queue file and the model.

Neither enqueues anything nor records model usage: the queue check takes the write lock
and rolls back; the model check sends one tiny request that is not counted in the daily
budget (doctor writes nothing to the state dir).
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import time
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.records import ErrorCode
from memory_core.reports.health import ERROR, OK, make_check
from workers.model_client import ModelCallError, complete

QUEUE_NAME = "memevo"  # the SqliteHuey name in workers.app
QUEUE_LOCK_SECONDS = 2.0
MODEL_CHECK_SECONDS = 10.0
MODEL_CHECK_TOKENS = 16
MODEL_CHECK_PROMPT = "Reply with the single word: ok"


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor or "/")


def queue_check(queue_path: Path, timeout: float = QUEUE_LOCK_SECONDS) -> dict[str, Any]:
    """Whether hooks can enqueue: the queue file takes a write lock (then rolls back), or,
    before the first hook created it, its directory is writable. Creates nothing."""
    quoted = shlex.quote(str(queue_path))
    if not queue_path.exists():
        parent = _existing_ancestor(queue_path.parent)
        if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
            return make_check(
                "queue",
                OK,
                "not created yet (the first hook creates it); its directory is writable",
                path=str(queue_path),
                pending=0,
            )
        return make_check(
            "queue",
            ERROR,
            f"cannot be created: {parent} is not a writable directory",
            f"chmod u+rwx {shlex.quote(str(parent))}  # or set MEMEVO_HOME to a writable directory",
            path=str(queue_path),
        )
    try:
        conn = sqlite3.connect(f"file:{queue_path}?mode=rw", uri=True, timeout=timeout, isolation_level=None)
    except sqlite3.Error as exc:
        return make_check(
            "queue",
            ERROR,
            f"cannot be opened for writing: {exc}",
            f"chmod u+rw {quoted}  # or move it aside; the next hook recreates it",
            path=str(queue_path),
        )
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            pending = (
                conn.execute("SELECT COUNT(*) FROM task WHERE queue=?", (QUEUE_NAME,)).fetchone()[0]
                if "task" in tables
                else 0
            )
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return make_check(
            "queue",
            ERROR,
            f"cannot be written: {exc}",
            f"mv {quoted} {shlex.quote(str(queue_path) + '.broken')}  # the next hook recreates it; "
            "jobs live in memory.db, so nothing is lost",
            path=str(queue_path),
        )
    finally:
        conn.close()
    return make_check("queue", OK, f"writable, {pending} messages waiting", path=str(queue_path), pending=pending)


def model_check(settings: Settings, deadline: float = MODEL_CHECK_SECONDS) -> dict[str, Any]:
    """One tiny chat request with a short deadline: does the configured model answer?"""
    probe = settings.model_copy(
        update={
            "attempt_seconds": min(settings.attempt_seconds, deadline),
            "max_output_tokens": MODEL_CHECK_TOKENS,
            "model_output_limit": None,
        }
    )
    details = {"model_url": settings.model_url, "model": settings.model}
    started = time.monotonic()
    try:
        complete(probe, [{"role": "user", "content": MODEL_CHECK_PROMPT}])
    except ModelCallError as exc:
        took = round(time.monotonic() - started, 2)
        if exc.code in (ErrorCode.OUTPUT_LIMIT, ErrorCode.INVALID_OUTPUT):
            # It answered; only the shape of this tiny answer is off, which is no reachability problem.
            return make_check(
                "model call", OK, f"answered in {took:.2f} s ({exc.description})", **details, seconds=took
            )
        reason = exc.description.removesuffix("; retried later")
        return make_check(
            "model call",
            ERROR,
            f"{settings.model} at {settings.model_url}: {reason}",
            _model_fix(exc.code, settings),
            **details,
            seconds=took,
            error_code=exc.code.value,
        )
    took = round(time.monotonic() - started, 2)
    return make_check("model call", OK, f"{settings.model} answered in {took:.2f} s", **details, seconds=took)


def _model_fix(code: ErrorCode, settings: Settings) -> str:
    if code == ErrorCode.PROVIDER:
        return "export MEMEVO_MODEL=<a model this server serves> MEMEVO_MODEL_API_KEY=<its key>"
    return (
        f"curl -sS {shlex.quote(str(settings.model_url) + '/models')}  # start the server, "
        "or export MEMEVO_MODEL_URL=<its base URL>"
    )
