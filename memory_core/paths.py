"""Where the state lives, resolved with the standard library only.

Hot paths (hooks, recall) use this instead of the full settings object so they never pay
for loading the validation machinery.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

HOME_VARIABLE = "MEMEVO_HOME"


def default_home(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/memevo``, else ``~/.local/share/memevo``."""
    xdg = env.get("XDG_DATA_HOME", "")
    # The XDG spec: a relative (or empty) path in the variable is invalid and ignored.
    if os.path.isabs(xdg):
        return Path(xdg) / "memevo"
    return Path.home() / ".local" / "share" / "memevo"


def state_home(env: Mapping[str, str] | None = None) -> Path:
    """The state directory: ``$MEMEVO_HOME`` (unless blank) or the default."""
    env = os.environ if env is None else env
    text = env.get(HOME_VARIABLE)
    # Blank counts as unset, like every other setting: "   " must not become a directory
    # named by spaces wherever the command happens to run.
    return Path(text).expanduser() if text and text.strip() else default_home(env)


def private_temp_file(directory: str | os.PathLike[str], prefix: str, suffix: str = "") -> tuple[int, str]:
    """A new file in ``directory`` that only this user can read or write, opened for writing:
    ``(fd, absolute path)``, made as :func:`tempfile.mkstemp` makes it (exclusive create,
    mode 0600, no following a link). Hooks write their small files with this because
    importing :mod:`tempfile` costs each of them several milliseconds."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.abspath(os.path.join(directory, f"{prefix}{os.urandom(8).hex()}{suffix}"))
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary file name in {directory}")
