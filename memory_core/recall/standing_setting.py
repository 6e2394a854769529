"""The ``standing_digest`` setting as the hooks read it, without loading the settings.

``on`` (the default) bounds the standing digest to :data:`DEFAULT_BYTES`; ``off`` turns it
off; a whole number of bytes between :data:`MIN_BYTES` and :data:`MAX_BYTES` sets the bound.
The environment (``MEMEVO_STANDING_DIGEST``) wins over ``config.toml``, as in the settings.
A value the settings would refuse (``memevo status`` and ``memevo config`` report it) keeps
the default: whoever wrote it did not mean to lose the conventions. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SETTING = "standing_digest"
VARIABLE = "MEMEVO_STANDING_DIGEST"
DEFAULT_BYTES = 1024
MIN_BYTES = 256
MAX_BYTES = 8192
ON_WORDS = frozenset({"on", "true", "yes", "1"})
OFF_WORDS = frozenset({"off", "false", "no", "0"})
ALLOWED = f"on, off, or a whole number of bytes between {MIN_BYTES} and {MAX_BYTES} (on is {DEFAULT_BYTES})"


def parse_standing(value: object) -> int:
    """The byte bound ``value`` names (0 for off); a :class:`ValueError` saying what is allowed."""
    if isinstance(value, bool):
        return DEFAULT_BYTES if value else 0
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip().lower()
        if text in ON_WORDS:
            return DEFAULT_BYTES
        if text in OFF_WORDS:
            return 0
        if not text.isdigit():
            raise ValueError(f"standing_digest must be {ALLOWED}, not {value!r}")
        number = int(text)
    if not MIN_BYTES <= number <= MAX_BYTES:
        raise ValueError(f"standing_digest must be {ALLOWED}, not {value!r}")
    return number


def standing_bytes(home: Path, env: Mapping[str, str] | None = None) -> int:
    """The standing digest's bound in bytes for the state dir ``home`` (0: off)."""
    env = os.environ if env is None else env
    raw = (env.get(VARIABLE) or "").strip()
    if raw:
        try:
            return parse_standing(raw)
        except ValueError:
            return DEFAULT_BYTES
    from memory_core.config_file import config_data

    try:
        data = config_data(home, SETTING)
    except (OSError, ValueError):
        return DEFAULT_BYTES
    if data is None or SETTING not in data:
        return DEFAULT_BYTES
    try:
        return parse_standing(data[SETTING])
    except ValueError:
        return DEFAULT_BYTES
