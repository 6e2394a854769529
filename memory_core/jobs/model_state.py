"""What workers know about their model, shared through ``metadata``.

- Whether the worker has a model at all, so `memevo status` and `memevo doctor` can say it
  is waiting for one (the worker's environment may differ from the shell running them).
- Which JSON output mode a model server accepted, keyed by a hash of its URL and model
  name (never the URL itself, which may carry credentials), so every worker process asks
  that server for what works after one of them found a mode it rejects.
"""

from __future__ import annotations

import hashlib

from memory_core.jobs.heartbeat import live_workers, worker_beats
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import person_key

WORKER_MODEL_KEY = "worker_model"
MODEL_CONFIGURED, MODEL_MISSING = "configured", "missing"
ANNOUNCED_KEY = "worker_no_model_announced_at"
JSON_MODE_PREFIX = "model_json_mode:"
# Strongest first: the order `auto` tries them in (workers/json_modes.py spells each one).
JSON_MODES = ("schema", "object_schema", "guided_json", "object", "off")
# Worker processes starting together announce a missing model once between them.
ANNOUNCE_QUIET_SECONDS = 30.0


def _set(conn: DbConn, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, value),
    )


def _get(conn: DbConn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (key,)).fetchone()
    return None if row is None else str(row[0])


def write_worker_model(conn: DbConn, configured: bool, worker: str | None = None) -> None:
    """Record whether the worker has a model (inside a write transaction, with the heartbeat);
    with ``worker`` (``host:pid``) also for that worker."""
    value = MODEL_CONFIGURED if configured else MODEL_MISSING
    key = person_key(conn, WORKER_MODEL_KEY)  # each person's workers their own (heartbeat)
    _set(conn, key, value)
    if worker:
        _set(conn, f"{key}:{worker}", value)


def read_worker_model(conn: DbConn) -> bool | None:
    """True when a running worker has a model, False when the running workers have none;
    ``None`` if no worker has reported. Running: a heartbeat within a few minutes of the
    newest, so one machine without a model does not hide the others' (and a worker that
    reported before per-worker keys existed still counts through the shared key)."""
    key = person_key(conn, WORKER_MODEL_KEY)
    beats = worker_beats(conn)
    if beats:
        live = live_workers(beats, beats[0].at)
        values = [_get(conn, f"{key}:{beat.worker}") for beat in live]
        known = [value for value in values if value in (MODEL_CONFIGURED, MODEL_MISSING)]
        if known:
            return MODEL_CONFIGURED in known
    value = _get(conn, key)
    return {MODEL_CONFIGURED: True, MODEL_MISSING: False}.get(value) if value is not None else None


def claim_missing_model_announcement(conn: DbConn, now: float) -> bool:
    """True for the one worker process that should say "no model" now (inside a write
    transaction): the first to start, unless another said it in the last 30 seconds."""
    announced = person_key(conn, ANNOUNCED_KEY)
    raw = _get(conn, announced)
    try:
        last = float(raw) if raw is not None else None
    except ValueError:
        last = None
    if last is not None and 0 <= now - last < ANNOUNCE_QUIET_SECONDS:
        return False
    _set(conn, announced, repr(now))
    return True


def _json_mode_key(model_url: str, model: str) -> str:
    digest = hashlib.sha256(f"{model_url}\n{model}".encode()).hexdigest()[:32]
    return JSON_MODE_PREFIX + digest


def remembered_json_mode(conn: DbConn, model_url: str, model: str) -> str | None:
    """The JSON mode this server and model were found to accept, if one was remembered."""
    value = _get(conn, person_key(conn, _json_mode_key(model_url, model)))
    return value if value in JSON_MODES else None


def remember_json_mode(conn: DbConn, model_url: str, model: str, mode: str) -> None:
    """Remember the JSON mode that worked after a server refused a stronger one."""
    if mode not in JSON_MODES:
        raise ValueError(f"unknown JSON mode {mode!r}")
    _set(conn, person_key(conn, _json_mode_key(model_url, model)), mode)  # each person's workers
