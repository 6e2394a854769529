"""The worker's log file under the state dir (never model text, bodies or credentials)."""

from __future__ import annotations

import logging
from pathlib import Path

from memory_core.store.engines.connection import ensure_private_dir

_configured: set[Path] = set()


def worker_logger(home: Path) -> logging.Logger:
    """``memevo.worker`` logging to ``logs/worker.log`` in the state dir."""
    logger = logging.getLogger("memevo.worker")
    path = ensure_private_dir(home / "logs") / "worker.log"
    if path not in _configured:
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        path.chmod(0o600)
        _configured.add(path)
    return logger
