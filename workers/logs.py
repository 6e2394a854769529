"""The worker's log file under the state dir (never model text, bodies or credentials).

Every worker process appends to ``logs/worker.log`` (several at once: huey's process
workers, a consumer on each machine of a PostgreSQL store's person), so the file is bounded
the way memevo's other logs are: each record is appended under the log's lock and, past
:data:`MAX_BYTES`, the oldest lines go (three quarters are kept), which no process can do
behind another's back as a rotating handler per process would.
"""

from __future__ import annotations

import logging
from pathlib import Path

from memory_core.files.jsonl_log import append
from memory_core.store.engines.connection import ensure_private_dir

MAX_BYTES = 5_000_000
_configured: set[Path] = set()


class BoundedLogHandler(logging.Handler):
    """Appends each formatted record to ``path`` under its lock; trims past ``max_bytes``."""

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        super().__init__()
        self.path = path
        self.lock_path = path.with_name(f".{path.name}.lock")
        self.max_bytes = max_bytes

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record).encode("utf-8", errors="backslashreplace")
            append(self.path, self.lock_path, line, max_bytes=self.max_bytes)
        except Exception:
            self.handleError(record)


def worker_logger(home: Path) -> logging.Logger:
    """``memevo.worker`` logging to ``logs/worker.log`` in the state dir."""
    logger = logging.getLogger("memevo.worker")
    path = ensure_private_dir(home / "logs") / "worker.log"
    if path not in _configured:
        handler = BoundedLogHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        _configured.add(path)
    return logger
