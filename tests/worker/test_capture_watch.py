"""The worker's capture watch (workers/capture_watch.py): new captures nudged from the worker's
side on SQLite, each once in a while, only as recovery would; one watcher per state dir; and,
end to end, a real worker consolidating a real hook's capture that wrote no nudge."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from memory_core.jobs.heartbeat import WATCH_KEY
from memory_core.store.engines.database import Store
from tests.factories import run_turn_end
from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.memevo_worker import MemevoWorker, memevo_env, query, sources, wait_until
from tests.worker.conftest import capture
from workers import capture_watch
from workers.capture_watch import RENUDGE_SECONDS, CaptureWatch

pytestmark = pytest.mark.sqlite_only  # on PostgreSQL hooks go through memevo serve, which nudges

REPO = Path(__file__).resolve().parents[2]
NOW = 2_000_000_000.0


def watching(home: Path, *, model: bool = True) -> tuple[CaptureWatch, list[str]]:
    nudged: list[str] = []
    return CaptureWatch(home, nudged.append, lambda conn, now: model), nudged


def watch_time(home: Path) -> float | None:
    with Store.open(home) as store:
        row = store.conn.execute("SELECT value FROM metadata WHERE key=?", (WATCH_KEY,)).fetchone()
    return None if row is None else float(row[0])


def test_a_new_capture_is_nudged_once_and_again_if_still_pending_a_while_later(home: Path) -> None:
    first = capture(home, "remember that the staging database listens on port 5433")
    watch, nudged = watching(home)
    assert watch.step(NOW) == [first]
    assert watch.step(NOW + 0.5) == []  # nothing changed: not even read
    second = capture(home, "remember that the release train leaves on Thursdays")
    assert watch.step(NOW + 1) == [second]  # the first was nudged a second ago
    assert watch.step(NOW + 2) == []
    # A minute on (the watch beats, so it looks): the first, still pending, is nudged again;
    # the second was nudged less than a minute ago.
    assert watch.step(NOW + RENUDGE_SECONDS + 0.5) == [first]
    third = capture(home, "remember that deploys freeze on Fridays")
    assert sorted(watch.step(NOW + RENUDGE_SECONDS + 1)) == sorted([second, third])  # a minute since the second
    assert sorted(nudged) == sorted([first, second, first, second, third])


def test_the_watch_records_itself_after_a_look_and_its_own_beat_nudges_no_one(home: Path) -> None:
    Store.open(home).close()  # the worker's heartbeat made the store before the watch starts
    watch, nudged = watching(home)
    assert watch.step(NOW) == [] and watch_time(home) == NOW
    assert watch.step(NOW + 1) == []  # its own write is looked at, and holds no capture
    assert watch.step(NOW + 2) == []  # nothing changed since
    assert watch.step(NOW + capture_watch.BEAT_SECONDS + 1) == []
    assert watch_time(home) == NOW + capture_watch.BEAT_SECONDS + 1
    assert nudged == []


def test_without_a_model_nothing_is_nudged_nor_the_watch_recorded(home: Path) -> None:
    """Hooks then nudge as before (a worker without a model does not claim to watch)."""
    capture(home)
    watch, nudged = watching(home, model=False)
    assert watch.step(NOW) == [] and nudged == []
    assert watch_time(home) is None


def test_a_capture_committed_while_the_watch_nudges_is_found_at_the_next_look(home: Path) -> None:
    first = capture(home)
    late: list[str] = []

    def nudge(source_id: str) -> None:
        if not late:  # a hook commits while the watch is busy nudging
            late.append(capture(home, "remember that the release train leaves on Thursdays"))

    watch = CaptureWatch(home, nudge, lambda conn, now: True)
    assert watch.step(NOW) == [first]
    assert watch.step(NOW + 0.5) == late


def test_a_source_is_nudged_again_only_while_the_queue_is_short(home: Path) -> None:
    first = capture(home)
    short = [False]
    nudged: list[str] = []
    watch = CaptureWatch(home, nudged.append, lambda conn, now: True, lambda: short[0])
    assert watch.step(NOW) == [first]
    second = capture(home, "remember that the release train leaves on Thursdays")
    assert watch.step(NOW + RENUDGE_SECONDS + 1) == [second]  # a first nudge needs no short queue
    short[0] = True
    assert watch.step(NOW + RENUDGE_SECONDS + capture_watch.BEAT_SECONDS + 2) == [first]  # a repeat does


def test_sources_nudged_a_moment_ago_do_not_fill_the_batch(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_watch, "BATCH", 3)
    older = [capture(home, f"remember that service {n} listens on port {9000 + n}") for n in range(3)]
    watch, nudged = watching(home)
    assert sorted(watch.step(NOW)) == sorted(older)
    newest = capture(home, "remember that deploys freeze on Fridays")
    assert watch.step(NOW + 1) == [newest]


class Stop(Exception):
    pass


def test_a_failed_look_waits_longer_each_time_and_takes_back_the_record(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    class Event:
        def wait(self, seconds: float) -> bool:
            waits.append(seconds)
            if len(waits) == 8:
                raise Stop
            return False

    class Failing:
        home = Path("/nonexistent")
        seen: tuple[int, ...] | None = (1,)
        last_beat: float | None = NOW

        def step(self, now: float) -> list[str]:
            raise OSError("the store cannot be read")

    monkeypatch.setattr(capture_watch.threading, "Event", Event)
    monkeypatch.setattr(capture_watch, "take_lock", lambda home: 99)
    monkeypatch.setattr("workers.logs.worker_logger", lambda home: logging.getLogger("test-capture-watch"))
    failing = Failing()
    with pytest.raises(Stop):
        capture_watch._loop(failing)  # type: ignore[arg-type]
    assert waits == [5.0, 10.0, 20.0, 40.0, 80.0, 120.0, 120.0, 120.0]
    assert failing.seen is None and failing.last_beat is None  # looked at afresh, recorded again only after a success


def test_the_budget_rule_is_recovery_s(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model, and today's budget spent: nothing nudged (start()'s rule, as recovery's)."""
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "fake")
    from memory_core.config import load_settings
    from memory_core.jobs import budget

    started: list[CaptureWatch] = []
    monkeypatch.setattr(capture_watch, "_started_pid", None)
    monkeypatch.setattr(capture_watch.threading.Thread, "start", lambda self: started.append(self._args[0]))
    assert capture_watch.start(load_settings(), lambda source_id: None)
    [watch] = started
    capture(home)
    with Store.open(home) as store:
        assert watch.may_nudge(store.conn, NOW)
    monkeypatch.setattr(budget, "budget_state", lambda *args: SimpleNamespace(spent=True))
    with Store.open(home) as store:
        assert not watch.may_nudge(store.conn, NOW)


HOLD = """
import sys
from pathlib import Path
from workers.capture_watch import take_lock
assert take_lock(Path(sys.argv[1])) is not None
print("held", flush=True)
sys.stdin.read()
"""


def test_one_watcher_per_state_dir(home: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    try:
        assert capture_watch.take_lock(home) is None  # another process watches
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    fd = capture_watch.take_lock(home)  # its process gone: this one takes over
    assert fd is not None
    os.close(fd)
    lock = home / "cache" / capture_watch.LOCK_NAME
    assert lock.stat().st_mode & 0o777 == 0o600 and lock.parent.stat().st_mode & 0o777 == 0o700


# A capture hook through the console script's run(), reporting whether it loaded the nudge queue.
PROBE = """
import json, os, sys
sys.argv = ["memevo", "hook", "turn_end"]
real_exit = os._exit
def report_then_exit(status):
    with open(os.environ["PROBE"], "w") as out:
        json.dump({"status": status, "nudge_queue": "workers.nudge_queue" in sys.modules}, out)
    real_exit(status)
os._exit = report_then_exit
from cli.main import run
run()
"""


@pytest.mark.slow
def test_a_running_worker_consolidates_a_capture_whose_hook_nudged_no_one(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = memevo_env(state)
    claim = {"kind": "fact", "content": "The staging database listens on port 5433.", "searchTerms": ["staging"]}
    with FakeModelProcess(tmp_path, [Reply.of_claims([claim])], default="empty") as model:
        with MemevoWorker(env, model.base_url, log=tmp_path / "worker.log"):
            wait_until(lambda: query(state, "SELECT value FROM metadata WHERE key=?", (WATCH_KEY,)), 30, "the watch")
            # The start-up recovery (milliseconds after the watch starts) is over before the
            # capture; the periodic one runs at the turn of each minute, so within the 10 s
            # waited below it is the watch (every half second) that nudges the capture.
            time.sleep(1)
            probe = tmp_path / "probe.json"
            messages = ["Remember that the staging database listens on port 5433."]
            run_turn_end(PROBE, tmp_path, {**env, "PROBE": str(probe)}, messages, "watched")
            assert json.loads(probe.read_text()) == {"status": 0, "nudge_queue": False}  # no nudge written
            wait_until(lambda: [s for s in sources(state) if s["state"] == "done"], 10, "the capture consolidated")
