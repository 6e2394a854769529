"""`memevo doctor` checks that cross a process boundary: the huey queue and the model.

Neither enqueues anything nor records model usage: the SQLite queue check takes the write
lock and rolls back, the PostgresHuey check reads its tables on a read-only connection, the
Redis check sends ``PING`` (and ``LLEN``) over a plain socket; the model check sends one tiny
request that is not counted in the daily budget (doctor writes nothing to the state dir).
"""

from __future__ import annotations

import os
import shlex
import socket
import sqlite3
import ssl
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from memory_core.config import Settings
from memory_core.errors import ConfigError
from memory_core.jobs.model_state import JSON_MODES
from memory_core.records import ErrorCode
from memory_core.reports.database_state import DATABASE_ERRORS
from memory_core.reports.health import ERROR, OK, make_check
from memory_core.reports.postgres_problems import postgres_fix, postgres_problem
from memory_core.store.engines.backend import POSTGRESQL, SQLITE, redact, resolve_queue
from workers.json_modes import DESCRIPTIONS
from workers.model_call import ModelCallError
from workers.model_client import complete
from workers.queue_names import QUEUE_NAME, queue_name

# PostgresHuey's task table (workers.app.TABLE_PREFIX + "_task"; a test keeps them equal).
# workers.app is not imported here: it builds the queue of the environment on import.
PG_TASK_TABLE = "memevo_huey_task"
REDIS_QUEUE_PREFIX = "huey.redis."  # + the queue's name: huey's RedisStorage list of pending messages
REDIS_SECONDS = 2.0
QUEUE_LOCK_SECONDS = 2.0
MODEL_CHECK_SECONDS = 10.0
MODEL_CHECK_TOKENS = 16
# Answerable in every JSON mode, the schema's included.
MODEL_CHECK_PROMPT = 'Reply with exactly this JSON and nothing else: {"claims": []}'


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


def queue_health(home: Path) -> dict[str, Any]:
    """The queue of state dir ``home``, whichever it is: queue.db, PostgresHuey or a Redis;
    the pending count is its person's queue's (:func:`~workers.queue_names.queue_name`)."""
    try:
        queue = resolve_queue(home)
    except ConfigError as exc:
        return make_check("queue", ERROR, f"the queue setting is refused: {exc}", "memevo config  # after fixing it")
    if queue.kind == SQLITE:
        return queue_check(home / "queue.db")
    name = queue_name(home)
    if queue.kind == POSTGRESQL:
        return postgres_queue_check(queue.url, name)
    return redis_queue_check(queue.url, name=name)


def postgres_queue_check(url: str, name: str = QUEUE_NAME) -> dict[str, Any]:
    """PostgresHuey's tables in the database: reachable, and writable by this login, whose
    queue is ``name`` (the login the server reports must be the one the name was read from);
    the messages waiting on it."""
    from memory_core.store.engines import pg

    where = redact(url)
    details: dict[str, Any] = {"backend": POSTGRESQL, "url": where}
    try:
        conn = pg.connect(url, readonly=True, application="memevo-doctor")
    except DATABASE_ERRORS as exc:
        problem = postgres_problem(str(exc))
        return make_check(
            "queue",
            ERROR,
            f"PostgresHuey cannot connect: {exc}",
            postgres_fix(problem, url),
            **details,
            problem=problem,
        )
    try:
        (login,) = conn.execute("SELECT current_user").fetchone()
        if name not in (QUEUE_NAME, f"{QUEUE_NAME}@{login}"):
            # Read from the URL without connecting (a user only a service file names is not
            # seen): nudges would go to a queue that this login's workers never read.
            return make_check(
                "queue",
                ERROR,
                f"PostgresHuey in {where}: this process names its queue {name}, but the server logs it in as "
                f"{login}, whose workers read {QUEUE_NAME}@{login}: nudges would reach no worker",
                f"put the user in the URL: postgresql://{login}@HOST/DB (or ?user={login})",
                **details,
                problem="queue_login",
            )
        row = conn.execute(
            "SELECT has_table_privilege(c.oid, 'INSERT') FROM pg_class c "
            "WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace",
            (PG_TASK_TABLE,),
        ).fetchone()
        if row is None:
            return make_check(
                "queue",
                OK,
                f"PostgresHuey in {where}: its tables are not created yet (the first worker or hook creates them)",
                **details,
                pending=0,
            )
        if not row[0]:
            return make_check(
                "queue",
                ERROR,
                f"PostgresHuey in {where}: this login may not write {PG_TASK_TABLE}, so hooks cannot nudge the worker",
                "psql -c 'GRANT ALL ON memevo_huey_task, memevo_huey_schedule, memevo_huey_kv, "
                "memevo_huey_counter TO <the memevo user>'  # as the tables' owner",
                **details,
            )
        pending = int(conn.execute(f"SELECT COUNT(*) FROM {PG_TASK_TABLE} WHERE queue = ?", (name,)).fetchone()[0])
    except DATABASE_ERRORS as exc:
        return make_check("queue", ERROR, f"PostgresHuey in {where} cannot be read: {exc}", None, **details)
    finally:
        conn.close()
    return make_check(
        "queue", OK, f"PostgresHuey in {where}: reachable, {pending} messages waiting", **details, pending=pending
    )


class RedisReplyError(Exception):
    """Redis answered a command with an error (``-ERR …``, ``-WRONGPASS …``, ``-NOAUTH …``)."""


def _redis_command(stream: Any, *words: str) -> Any:
    payload = f"*{len(words)}\r\n" + "".join(f"${len(w.encode())}\r\n{w}\r\n" for w in words)
    stream.write(payload.encode())
    stream.flush()
    line = stream.readline(65_536).decode("utf-8", "replace").rstrip("\r\n")
    if not line:
        raise ConnectionError("the server closed the connection")
    kind, rest = line[:1], line[1:]
    if kind == "-":
        raise RedisReplyError(rest)
    if kind == ":":
        return int(rest)
    if kind == "+":
        return rest
    raise ConnectionError(f"not a Redis reply: {line[:60]!r}")


def redis_queue_check(url: str, timeout: float = REDIS_SECONDS, *, name: str = QUEUE_NAME) -> dict[str, Any]:
    """A Redis queue: reachable, the login accepted (``AUTH`` when the URL has a password),
    ``PING`` answered; the pending count is the length of huey's list of queue ``name``.
    Plain socket, no driver."""
    where = redact(url)
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    try:
        port = parts.port or 6379
    except ValueError:
        return make_check("queue", ERROR, f"Redis URL {where} has no valid port", "fix MEMEVO_QUEUE_URL", url=where)
    database = parts.path.lstrip("/") or "0"
    details: dict[str, Any] = {"backend": "redis", "url": where}
    ping = f"redis-cli -h {shlex.quote(host)} -p {port} ping"
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        return make_check(
            "queue",
            ERROR,
            f"cannot reach Redis at {where} ({reason}): hooks cannot nudge the worker",
            f"{ping}  # start redis-server, or fix the host and port in MEMEVO_QUEUE_URL",
            **details,
            problem="unreachable",
        )
    try:
        if parts.scheme == "rediss":
            raw = ssl.create_default_context().wrap_socket(raw, server_hostname=host)
        stream = raw.makefile("rwb")
        try:
            if parts.password is not None:
                user = unquote(parts.username or "")
                _redis_command(stream, "AUTH", *([user] if user else []), unquote(parts.password))
            if database != "0":
                _redis_command(stream, "SELECT", database)
            _redis_command(stream, "PING")
            pending = int(_redis_command(stream, "LLEN", REDIS_QUEUE_PREFIX + name))
        finally:
            stream.close()
    except RedisReplyError as exc:
        said = str(exc)
        if said.startswith("NOAUTH"):
            summary = f"Redis at {where} wants a password ({said})"
            fix = "export MEMEVO_QUEUE_URL=redis://:PASSWORD@HOST:PORT/0  # the server's requirepass"
            problem = "no_password"
        elif said.startswith("WRONGPASS") or "password" in said.lower():
            summary = f"Redis at {where} refused the login ({said})"
            fix = "check the user and password in MEMEVO_QUEUE_URL (redis://[USER]:PASSWORD@HOST:PORT/0)"
            problem = "login"
        else:
            summary, fix, problem = (
                f"Redis at {where} answered an error: {said}",
                f"{ping}  # see what it says",
                "other",
            )
        return make_check("queue", ERROR, summary, fix, **details, problem=problem)
    except (OSError, ConnectionError, ValueError) as exc:
        return make_check(
            "queue",
            ERROR,
            f"Redis at {where} did not answer as Redis ({exc})",
            f"{ping}  # is this port a Redis (TLS: rediss://)?",
            **details,
            problem="unreachable",
        )
    finally:
        raw.close()
    return make_check("queue", OK, f"Redis at {where}: answers, {pending} messages waiting", **details, pending=pending)


def model_check(settings: Settings, deadline: float = MODEL_CHECK_SECONDS) -> dict[str, Any]:
    """One tiny chat request with a short deadline: does the configured model answer, and
    which JSON mode does it accept? ``auto`` tries them as the worker does (strongest
    first, stepping down on a refusal); a fixed mode is sent as it is."""
    probe = settings.model_copy(
        update={
            "attempt_seconds": min(settings.attempt_seconds, deadline),
            "first_call_seconds": min(settings.attempt_seconds, deadline),
            "max_output_tokens": MODEL_CHECK_TOKENS,
            "model_output_limit": None,
        }
    )
    auto = settings.model_json_mode == "auto"
    first = JSON_MODES[0] if auto else settings.model_json_mode
    details: dict[str, Any] = {"model_url": settings.model_url, "model": settings.model}
    started = time.monotonic()
    try:
        answer = complete(probe, [{"role": "user", "content": MODEL_CHECK_PROMPT}], json_mode=first, fallback=auto)
    except ModelCallError as exc:
        took = round(time.monotonic() - started, 2)
        if exc.code in (ErrorCode.OUTPUT_LIMIT, ErrorCode.INVALID_OUTPUT):
            # It answered; only the shape of this tiny answer is off, which is no reachability problem.
            mode = exc.json_mode or first
            return make_check(
                "model call",
                OK,
                f"answered in {took:.2f} s ({exc.description}); {_accepted(mode)}",
                **details,
                seconds=took,
                json_mode=mode,
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
    return make_check(
        "model call",
        OK,
        f"{settings.model} answered in {took:.2f} s; {_accepted(answer.json_mode)}",
        **details,
        seconds=took,
        json_mode=answer.json_mode,
    )


def _accepted(mode: str) -> str:
    return f"JSON mode {mode}: {DESCRIPTIONS[mode]}"


def _model_fix(code: ErrorCode, settings: Settings) -> str:
    if code == ErrorCode.PROVIDER:
        return "export MEMEVO_MODEL=<a model this server serves> MEMEVO_MODEL_API_KEY=<its key>"
    return (
        f"curl -sS {shlex.quote(str(settings.model_url) + '/models')}  # start the server, "
        "or export MEMEVO_MODEL_URL=<its base URL>"
    )
