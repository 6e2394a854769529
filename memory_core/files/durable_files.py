"""Making a rename survive a power cut: after ``os.replace`` into a directory, the directory
itself must reach the disk. Standard library only (the hook's spool uses it)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from pathlib import Path


def sync_dir(directory: Path) -> None:
    """fsync ``directory`` so the entries renamed into it are durable; best effort (some
    file systems refuse to open or sync a directory, and then there is nothing more to do)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
