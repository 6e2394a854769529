"""``config.toml`` of a state dir as the hooks read it: without loading the settings (their
models cost a hook tens of milliseconds), read once per process while the file is unchanged,
and parsed only when it names the setting asked for. Standard library only.

Each caller keeps its own answer to a file it cannot read (the store setting refuses it,
the review gate stays on, a project name falls back to the repository)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CONFIG_FILE = "config.toml"
_read: dict[str, tuple[tuple[int, int], bytes]] = {}


def config_bytes(home: Path) -> bytes | None:
    """The file's bytes, or ``None`` when there is none; another ``OSError`` is raised. One
    ``stat`` when this process read the file already and it has not changed since."""
    path = os.path.join(home, CONFIG_FILE)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    stamp = (info.st_mtime_ns, info.st_size)
    kept = _read.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    with open(path, "rb") as handle:
        raw = handle.read()
    _read[path] = (stamp, raw)
    return raw


def config_data(home: Path, *names: str) -> dict[str, Any] | None:
    """The parsed file when it exists and its text names one of ``names`` (else ``None``);
    ``OSError``, ``UnicodeDecodeError`` and ``tomllib.TOMLDecodeError`` are raised."""
    raw = config_bytes(home)
    if raw is None or not any(name.encode() in raw for name in names):
        return None
    import tomllib  # only when the file names the setting

    return tomllib.loads(raw.decode("utf-8"))
