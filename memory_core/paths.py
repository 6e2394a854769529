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
