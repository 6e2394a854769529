"""Each worker process's heartbeat and clock check, on a thread of its own.

At start-up (huey's startup hook, in every worker process) and then every
:data:`BEAT_SECONDS`, a worker records its own heartbeat and whether it has a model under
its ``host:pid`` name (so status can say how many workers run on how many hosts), and, on a
PostgreSQL store, compares its clock with the server's: above 2 s it warns in the worker log,
above half the lease grace it leases nothing (:func:`may_lease`) until the clocks agree
again. One small write transaction a minute per worker process.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import TYPE_CHECKING

from memory_core import clock
from memory_core.jobs import clock_skew
from memory_core.jobs.heartbeat import write_heartbeat
from memory_core.jobs.model_state import write_worker_model

if TYPE_CHECKING:
    from memory_core.config import Settings

BEAT_SECONDS = 30.0

_lock = threading.Lock()
_started_pid: int | None = None
_refusal: str | None = None  # the log line that explains why this worker leases nothing
_last_action = clock_skew.OK


def worker_name() -> str:
    """This worker process: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def may_lease() -> bool:
    """False while this process's clock is too far from the database server's."""
    return _refusal is None


def refusal() -> str | None:
    return _refusal


def judge(verdict: clock_skew.SkewVerdict | None, log: logging.Logger) -> None:
    """Act on one clock verdict: log a change of state once, refuse or allow leasing."""
    global _refusal, _last_action
    action = clock_skew.OK if verdict is None else verdict.action
    if verdict is not None and action != _last_action:
        if action == clock_skew.REFUSE:
            log.error("clock skew: %s", verdict.message)
        elif action == clock_skew.WARN:
            log.warning("clock skew: %s", verdict.message)
        else:
            log.info("clock skew: %.3f s; leasing again", verdict.skew)
    _last_action = action
    _refusal = verdict.message if verdict is not None and action == clock_skew.REFUSE else None


def beat(cfg: Settings) -> clock_skew.SkewVerdict | None:
    """One heartbeat and clock check for this worker process."""
    from memory_core.store.engines.database import Store
    from workers.logs import worker_logger

    with Store.open(cfg.home) as store:
        verdict = clock_skew.check_clock(store.conn, cfg.lease_grace_seconds)
        with store.transaction() as conn:
            name = worker_name()
            write_heartbeat(conn, clock.now(), name)
            write_worker_model(conn, cfg.model_configured, name)
    judge(verdict, worker_logger(cfg.home))
    return verdict


def start(cfg: Settings) -> None:
    """Beat now, then every :data:`BEAT_SECONDS` on a daemon thread (once per process)."""
    global _started_pid
    with _lock:
        if _started_pid == os.getpid():
            return
        _started_pid = os.getpid()
    _beat_quietly(cfg)
    thread = threading.Thread(target=_loop, args=(cfg,), name="memevo-liveness", daemon=True)
    thread.start()


def _beat_quietly(cfg: Settings) -> None:
    try:
        beat(cfg)
    except Exception:  # the store may be briefly unreachable: the next beat tries again
        from workers.logs import worker_logger

        worker_logger(cfg.home).warning("heartbeat failed; retrying in %.0f s", BEAT_SECONDS, exc_info=True)


def _loop(cfg: Settings) -> None:
    stop = threading.Event()
    while not stop.wait(BEAT_SECONDS):
        _beat_quietly(cfg)
