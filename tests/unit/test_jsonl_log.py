"""The bounded JSON-lines logs' lock (memory_core/files/jsonl_log.py): appends from threads of
one process and from other processes exclude each other, so no line is lost or torn, also
while the oldest lines are trimmed; a process holding the lock makes an append wait."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memory_core.files import jsonl_log

REPO = Path(__file__).resolve().parents[2]
WRITER = """
import sys
from pathlib import Path
from memory_core.files import jsonl_log
path, name, count, max_bytes = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lock = path.with_suffix(".lock")
for i in range(count):
    line = jsonl_log.encode({"writer": name, "n": i, "pad": "x" * 200}, 4000)
    jsonl_log.append(path, lock, line, max_bytes=max_bytes)
"""


# Another process holding a log's lock for 0.8 s.
HOLD = (
    "import os, sys, time\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "os.lockf(fd, os.F_LOCK, 0)\n"
    "print('held', flush=True)\n"
    "time.sleep(0.8)\n"
)


def append_many(path: Path, name: str, count: int, max_bytes: int) -> None:
    for i in range(count):
        line = jsonl_log.encode({"writer": name, "n": i, "pad": "x" * 200}, 4000)
        assert line is not None
        jsonl_log.append(path, path.with_suffix(".lock"), line, max_bytes=max_bytes)


def run_writers(path: Path, count: int, max_bytes: int) -> list[str]:
    """Two processes and three threads of this one appending ``count`` lines each at once."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"p{n}", str(count), str(max_bytes)],
            env=env,
        )
        for n in range(2)
    ]
    failures: list[BaseException] = []

    def thread_writer(name: str) -> None:
        try:
            append_many(path, name, count, max_bytes)
        except BaseException as exc:  # a thread's failure fails the test
            failures.append(exc)

    threads = [threading.Thread(target=thread_writer, args=(f"t{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    for process in processes:
        assert process.wait(timeout=120) == 0
    return ["p0", "p1", "t0", "t1", "t2"]


def entries(path: Path) -> list[dict[str, object]]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.splitlines()]  # a torn line would not parse


def test_concurrent_appends_from_threads_and_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "test.jsonl"
    path.parent.mkdir()
    writers = run_writers(path, 150, max_bytes=10_000_000)
    found = entries(path)
    assert len(found) == 150 * len(writers)
    for writer in writers:
        assert [entry["n"] for entry in found if entry["writer"] == writer] == list(range(150))
    assert path.stat().st_mode & 0o777 == 0o600


def test_trimming_under_concurrent_appends_keeps_whole_lines_in_order(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "test.jsonl"
    path.parent.mkdir()
    bound = 20_000  # about 80 lines: trimmed many times over
    writers = run_writers(path, 200, max_bytes=bound)
    found = entries(path)
    assert path.stat().st_size <= bound
    assert len(found) >= 3 * bound // 4 // 300  # at least what a trim keeps (3/4 of the bound, ~250-byte lines)
    for writer in writers:
        numbers = [int(str(entry["n"])) for entry in found if entry["writer"] == writer]
        assert numbers == sorted(numbers)  # each writer's newest lines, none reordered
        if numbers:
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # no gap: none lost


def test_an_append_waits_for_another_process_holding_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "test.jsonl"
    lock = path.with_suffix(".lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    started = time.monotonic()
    jsonl_log.append(path, lock, b'{"n":1}', max_bytes=1000)
    waited = time.monotonic() - started
    holder.wait(timeout=10)
    assert waited >= 0.4, f"the append did not wait for the lock ({waited:.2f} s)"
    assert entries(path) == [{"n": 1}]


def test_a_signal_handled_while_waiting_does_not_end_the_wait(tmp_path: Path) -> None:
    """A worker's signal handler runs while an append waits for the lock: the append still
    waits and writes its line (os.lockf raises InterruptedError where flock retried)."""
    path = tmp_path / "test.jsonl"
    lock = path.with_suffix(".lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    handled: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda number, frame: handled.append(number))
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        jsonl_log.append(path, lock, b'{"n":2}', max_bytes=1000)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    holder.wait(timeout=10)
    assert handled == [signal.SIGALRM]
    assert entries(path) == [{"n": 2}]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_child_forked_while_the_lock_was_held_can_append(tmp_path: Path) -> None:
    path = tmp_path / "test.jsonl"
    with jsonl_log._in_process:  # as another thread appending at the moment of a fork
        pid = os.fork()
        if pid == 0:  # the child: its append must not wait for a thread it does not have
            try:
                jsonl_log.append(path, path.with_suffix(".lock"), b'{"child":1}', max_bytes=1000)
                os._exit(0)
            except BaseException:
                os._exit(1)
        deadline = time.monotonic() + 20
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.02)
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert done and os.waitstatus_to_exitcode(status) == 0, "the forked child's append hung or failed"
    assert entries(path) == [{"child": 1}]
