"""The worker notices new captures itself, on a SQLite store: capture hooks nudge no one.

A capture hook commits its source and job to ``memory.db``; something must then tell the
worker to attempt it. On SQLite that used to be the hook writing a huey message into
``queue.db`` (another database opened, about 0.5 ms of every capture while a worker ran).
Now one thread of one worker process per state dir watches instead: every
:data:`WATCH_SECONDS` it compares ``memory.db``'s WAL and file (inode, size, modification
time) with what it saw last; when they changed (a capture, or any other write), and at
least every :data:`BEAT_SECONDS`, it reads the due sources (read-only: it never migrates or
writes the store for that) and nudges through huey the ones it has not nudged yet; one it
nudged more than :data:`RENUDGE_SECONDS` ago and still due is nudged again only while the
queue is short, as recovery does. Nothing is nudged without a model or once today's budget is
spent (recovery's rules). After a look that could nudge, at most every
:data:`BEAT_SECONDS`, it records ``capture_watch`` in ``metadata``
(``memory_core.jobs.heartbeat.write_watch``): a capture hook that finds that record fresh
(within ``LIVE_SECONDS``, as the heartbeat) writes no nudge (cli/nudge.py). A look that
fails (the store unreachable, damaged or at another schema version) waits
:data:`RETRY_SECONDS`, doubling to :data:`RETRY_MAX_SECONDS`, and records
nothing, so hooks nudge again once the record is stale.

One watcher per state dir: the thread holds a lock on ``cache/capture-watch.lock``
(:func:`os.lockf`, released when its process ends); the other worker processes try to take
it every :data:`TAKEOVER_SECONDS`. A watcher that stops (its process killed, or stuck) stops
recording, and within ``LIVE_SECONDS`` hooks nudge again; meanwhile the periodic recovery
nudges due sources once a minute. On PostgreSQL nothing here runs: hooks go through
``memevo serve``, which nudges in the capture's own transaction.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core import clock
from memory_core.jobs.heartbeat import write_watch

if TYPE_CHECKING:
    from memory_core.config import Settings
    from memory_core.store.engines.dbapi import DbConn

WATCH_SECONDS = 0.5
BEAT_SECONDS = 30.0
RENUDGE_SECONDS = 60.0
TAKEOVER_SECONDS = 10.0
RETRY_SECONDS = 5.0
FORGET_SECONDS = 86_400.0  # a source nudged longer ago than this counts as never nudged
RETRY_MAX_SECONDS = 120.0
BATCH = 50  # sources nudged per look at most, as a recovery batch
LOCK_NAME = "capture-watch.lock"

_started_pid: int | None = None
_start_lock = threading.Lock()


class CaptureWatch:
    """What one watcher saw and nudged; :meth:`step` is one look (its clock passed in).

    ``may_nudge(conn, now)``: a model and budget (recovery's rules); ``queue_short()``: whether
    the queue is short enough for nudging a source again."""

    def __init__(
        self,
        home: Path,
        nudge: Callable[[str], object],
        may_nudge: Callable[[DbConn, float], bool],
        queue_short: Callable[[], bool] = lambda: True,
    ) -> None:
        self.home = home
        self.nudge = nudge
        self.may_nudge = may_nudge
        self.queue_short = queue_short
        self.seen: tuple[int, ...] | None = None
        self.last_beat: float | None = None
        self.nudged: dict[str, float] = {}  # source id -> when this watcher last nudged it (a day at most)

    def signature(self) -> tuple[int, ...]:
        """``memory.db`` and its WAL as the file system describes them (0s where missing)."""
        parts: list[int] = []
        for suffix in ("", "-wal"):
            try:
                status = os.stat(f"{self.home / 'memory.db'}{suffix}")
                parts += [status.st_ino, status.st_size, status.st_mtime_ns]
            except OSError:
                parts += [0, 0, 0]
        return tuple(parts)

    def step(self, now: float) -> list[str]:
        """Look once: when the database changed, or a beat is due, nudge the due sources as the
        module says, and record the watch after a look that could nudge (at most every
        :data:`BEAT_SECONDS`); returns the ids nudged. Raises what reading the store raises."""
        beat_due = self.last_beat is None or not 0 <= now - self.last_beat < BEAT_SECONDS
        signature = self.signature()
        if signature == self.seen and not beat_due:
            return []
        from memory_core.jobs.lifecycle import due_source_ids
        from memory_core.store.engines.backend import resolve
        from memory_core.store.engines.database import Store

        if not resolve(self.home).is_sqlite:  # moved to PostgreSQL meanwhile: its hooks go through serve
            self.seen = signature
            return []
        self.seen = signature  # before reading: a commit from here on is looked at again
        for source_id, at in list(self.nudged.items()):
            if not 0 <= now - at < FORGET_SECONDS:
                del self.nudged[source_id]
        recent = {source_id for source_id, at in self.nudged.items() if 0 <= now - at < RENUDGE_SECONDS}
        nudged: list[str] = []
        with Store.open_readonly(self.home) as store:
            able = self.may_nudge(store.conn, now)
            if able:
                again_ok: bool | None = None  # asked once a look, when a repeat comes up
                for source_id in due_source_ids(store.conn, now, BATCH + len(recent)):
                    if source_id in recent or len(nudged) >= BATCH:
                        continue
                    if source_id in self.nudged:  # nudged over a minute ago and still due
                        if again_ok is None:
                            again_ok = self.queue_short()
                        if not again_ok:
                            continue
                    self.nudge(source_id)
                    self.nudged[source_id] = now
                    nudged.append(source_id)
        if beat_due and able:
            with Store.open(self.home) as store, store.transaction() as conn:
                write_watch(conn, now)
            self.last_beat = now
        return nudged


def take_lock(home: Path) -> int | None:
    """A descriptor holding the watch lock of ``home``, or ``None`` when another process has it."""
    from memory_core.store.engines.connection import ensure_private_dir

    directory = ensure_private_dir(home / "cache")
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.lockf(fd, os.F_TLOCK, 0)
    except OSError:
        os.close(fd)
        return None
    return fd


def start(cfg: Settings, nudge: Callable[[str], object], queue_short: Callable[[], bool] = lambda: True) -> bool:
    """Start this process's watch thread (once per process; SQLite stores only): it watches
    while it holds the lock, and tries to take it every :data:`TAKEOVER_SECONDS` otherwise.
    ``nudge`` enqueues one source's attempt; ``queue_short`` says whether a source may be
    nudged again (the worker's rule for recovery). False when nothing was started."""
    global _started_pid
    from memory_core.store.engines.backend import resolve

    if not resolve(cfg.home).is_sqlite:
        return False
    with _start_lock:
        if _started_pid == os.getpid():
            return False
        _started_pid = os.getpid()

    def may_nudge(conn: DbConn, now: float) -> bool:
        from memory_core.jobs.budget import budget_state

        if not cfg.model_configured:
            return False  # without a model nothing is nudged (recovery's rule)
        budget = budget_state(conn, now, cfg.daily_model_calls, cfg.daily_model_tokens, cfg.daily_model_cost_usd)
        return not budget.spent

    watch = CaptureWatch(cfg.home, nudge, may_nudge, queue_short)
    thread = threading.Thread(target=_loop, args=(watch,), name="memevo-capture-watch", daemon=True)
    thread.start()
    return True


def _loop(watch: CaptureWatch) -> None:
    from workers.logs import worker_logger

    stop = threading.Event()
    lock: int | None = None
    retry = 0.0  # after a failed look: how long the next one waits
    while True:
        if lock is None:
            try:
                lock = take_lock(watch.home)
            except OSError:
                lock = None
            if lock is None:
                stop.wait(TAKEOVER_SECONDS)
                continue
        try:
            watch.step(clock.now())
            retry = 0.0
        except Exception:  # unreachable, damaged, another schema version: try again later
            if not retry:
                worker_logger(watch.home).warning("capture watch failed; trying again", exc_info=True)
            retry = min(RETRY_MAX_SECONDS, retry * 2 if retry else RETRY_SECONDS)
            watch.seen = None
            watch.last_beat = None  # nothing recorded until a look succeeds
            stop.wait(retry)
            continue
        stop.wait(WATCH_SECONDS)
