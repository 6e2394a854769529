"""``logs/worker.log`` is bounded (several worker processes append to it at once): the oldest
lines go past its bound, every line written whole, the file private."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

from tests.support.processes import REPO
from workers.logs import BoundedLogHandler

_WRITER = """
import logging, sys
from pathlib import Path
from workers.logs import BoundedLogHandler
log = logging.getLogger("t")
log.addHandler(BoundedLogHandler(Path(sys.argv[1]), max_bytes=20_000))
log.setLevel(logging.INFO)
for n in range(600):
    log.info("process %s line %05d %s", sys.argv[2], n, "x" * 40)
"""


def test_processes_appending_at_once_keep_the_log_bounded_and_whole(tmp_path: Path) -> None:
    path = tmp_path / "worker.log"
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(n)], cwd=REPO) for n in range(3)]
    assert all(w.wait(timeout=120) == 0 for w in writers)
    data = path.read_bytes()
    assert len(data) <= 20_000
    lines = data.decode().splitlines()
    assert lines and all(line.startswith("process ") and line.endswith("x" * 40) for line in lines)  # none torn
    assert any(line.startswith("process 0 line 00599") or "line 00599" in line for line in lines[-3:])
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_record_that_cannot_be_written_does_not_raise(tmp_path: Path) -> None:
    handler = BoundedLogHandler(tmp_path / "missing-dir" / "worker.log")
    handler.handleError = lambda record: None  # type: ignore[method-assign]
    handler.emit(logging.LogRecord("t", logging.INFO, __file__, 1, "message", None, None))
