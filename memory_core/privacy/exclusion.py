"""The ``exclude`` setting: directories whose sessions memevo never reads.

A session whose working directory is one of the directories the globs name, or lies under
one, is not captured by the hooks nor by backfill and gets no digest. ``MEMEVO_EXCLUDE``
(globs separated by ``os.pathsep``, as ``PATH``) wins over ``exclude`` in ``config.toml`` (a
list of strings, or one string). ``~`` is expanded; a relative glob is relative to nothing
and matches nothing. Standard library only: every hook asks (docs/configuration.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SETTING = "exclude"
VARIABLE = "MEMEVO_EXCLUDE"
ALLOWED = "a list of directory globs (in MEMEVO_EXCLUDE separated by the path separator), ~ expanded"


def parse_exclude(value: object) -> tuple[str, ...]:
    """The globs ``value`` names: a list of strings, or one string split at ``os.pathsep``;
    a :class:`ValueError` saying what is allowed."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = list(value.split(os.pathsep))
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"exclude must be {ALLOWED}, not {value!r}")
    globs = []
    for item in items:
        if not isinstance(item, str) or "\x00" in item:
            raise ValueError(f"exclude must be {ALLOWED}, not {value!r}")
        text = item.strip()
        if text and text not in globs:
            globs.append(text)
    return tuple(globs)


def expand_glob(glob: str) -> str:
    """``glob`` with ``~`` expanded and without a trailing separator (``/`` stays ``/``)."""
    expanded = os.path.expanduser(glob)
    stripped = expanded.rstrip("/")
    return stripped or expanded[:1]


def excluded_by(cwd: str, globs: tuple[str, ...]) -> str | None:
    """The glob that excludes the directory ``cwd`` (as given and with symbolic links
    resolved), or ``None``. A glob names a directory; what lies under it is excluded too."""
    if not cwd or not globs:
        return None
    from fnmatch import fnmatchcase  # only when something is excluded

    patterns = [(glob, expand_glob(glob)) for glob in globs]
    places = {os.path.normpath(cwd)}
    try:
        places.add(os.path.realpath(cwd))
    except (OSError, ValueError):
        pass
    for place in places:
        if not os.path.isabs(place):
            continue
        for directory in _self_and_parents(place):
            for glob, pattern in patterns:
                if os.path.isabs(pattern) and fnmatchcase(directory, pattern):
                    return glob
    return None


def _self_and_parents(path: str) -> list[str]:
    found = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return found
        found.append(parent)
        path = parent


def exclude_globs(home: Path, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The globs in force for the state dir ``home``. A value the settings would refuse
    (``memevo status`` and ``memevo config`` report it) is read as far as it makes sense: an
    unreadable file excludes nothing rather than stopping every hook."""
    env = os.environ if env is None else env
    raw = (env.get(VARIABLE) or "").strip()
    if raw:
        try:
            return parse_exclude(raw)
        except ValueError:
            return ()
    from memory_core.config_file import config_data

    try:
        data = config_data(home, SETTING)
    except (OSError, ValueError):
        return ()
    if data is None:
        return ()
    try:
        return parse_exclude(data.get(SETTING))
    except ValueError:
        return ()


def excluding_glob(cwd: str, home: Path, env: Mapping[str, str] | None = None) -> str | None:
    """The glob of the ``exclude`` setting that excludes ``cwd`` (``None``: not excluded)."""
    if not cwd:
        return None
    return excluded_by(cwd, exclude_globs(home, env))
