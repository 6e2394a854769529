"""`memevo exclude PATH` and `memevo include PATH`: the ``exclude`` setting of ``config.toml`` edited.

A path is kept absolute (``.`` is the directory the command runs in; symbolic links
resolved, unless it is a glob); a path beginning with ``~`` is kept as typed, so it means the
same for every login. ``MEMEVO_EXCLUDE`` wins over the file (memory_core.privacy.exclusion): the
answer says so, since an edit of the file then changes nothing until it is unset.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_core.controls.config_edit import read_config, write_setting
from memory_core.errors import UsageError
from memory_core.privacy.exclusion import SETTING, VARIABLE, exclude_globs, excluded_by, expand_glob, parse_exclude

_GLOB_CHARACTERS = frozenset("*?[")


def as_glob(path: str, cwd: str) -> str:
    """How ``path`` is stored: a glob or ``~`` path as typed, else absolute from ``cwd``."""
    text = path.strip()
    if not text or "\x00" in text:
        raise UsageError("give a directory path or glob, e.g. `memevo exclude ~/clients/acme`")
    if text.startswith("~"):
        return text.rstrip("/") or text
    absolute = os.path.normpath(os.path.join(cwd, text))
    return absolute if _GLOB_CHARACTERS & set(text) else os.path.realpath(absolute)


def _file_globs(home: Path) -> list[str]:
    try:
        return list(parse_exclude(read_config(home).get(SETTING)))
    except ValueError as exc:
        raise UsageError(f"{home / 'config.toml'}: {exc}; edit the file by hand") from None


def exclude_directory(home: Path, path: str, cwd: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Add ``path`` to ``exclude`` in ``home/config.toml``; what the setting is now."""
    glob = as_glob(path, cwd)
    globs = _file_globs(home)
    changed = False
    if not any(expand_glob(g) == expand_glob(glob) for g in globs):
        globs.append(glob)
        _, changed = write_setting(home, SETTING, globs)
    return _answer(home, glob, globs, changed, env)


def include_directory(home: Path, path: str, cwd: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Remove ``path`` from ``exclude`` in ``home/config.toml``; what the setting is now and,
    when another glob still excludes it, which."""
    glob = as_glob(path, cwd)
    globs = _file_globs(home)
    kept = [g for g in globs if expand_glob(g) != expand_glob(glob)]
    changed = False
    if kept != globs:
        _, changed = write_setting(home, SETTING, kept)
    return _answer(home, glob, kept, changed, env)


def _answer(
    home: Path, glob: str, file_globs: list[str], changed: bool, env: Mapping[str, str] | None
) -> dict[str, Any]:
    env = os.environ if env is None else env
    in_force = exclude_globs(home, env)
    target = expand_glob(glob)
    still = excluded_by(target, in_force) if os.path.isabs(target) and not _GLOB_CHARACTERS & set(target) else None
    return {
        "path": glob,
        "changed": changed,
        "config_file": str(home / "config.toml"),
        "exclude": file_globs,
        "in_force": list(in_force),
        "from_environment": bool((env.get(VARIABLE) or "").strip()),
        "excluded_by": still,
    }
