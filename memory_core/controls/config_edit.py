"""Writing one top-level setting of ``config.toml`` in the state dir.

The setting's one line is replaced when it is there, else added before the first table; the
rest of the file is kept byte for byte. The new text is parsed before it is written: a value
spread over several lines by hand (which one line cannot replace) is refused with a
:class:`ConfigError` instead of leaving a broken file. Written to a temporary file, synced,
made 0600 and renamed.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from memory_core.config import CONFIG_FILE
from memory_core.errors import ConfigError
from memory_core.files.durable_files import sync_dir
from memory_core.store.engines.connection import ensure_private_dir


def toml_value(value: str | list[str]) -> str:
    """``value`` as TOML: a JSON string or list of strings is a TOML basic string or array."""
    return json.dumps(value, ensure_ascii=False)


def read_config(home: Path) -> dict[str, Any]:
    """The parsed file (``{}`` when there is none); a :class:`ConfigError` when it cannot be read."""
    path = home / CONFIG_FILE
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; fix or remove the file") from None


def write_setting(home: Path, name: str, value: str | list[str]) -> tuple[Path, bool]:
    """Set the top-level ``name`` to ``value`` in ``home/config.toml``; the path and whether it changed."""
    ensure_private_dir(home)
    path = home / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    line = f"{name} = {toml_value(value)}"
    existing = re.compile(rf"(?m)^[ \t]*{re.escape(name)}[ \t]*=.*$")
    if existing.search(text):
        updated = existing.sub(lambda _m: line, text, count=1)
    else:
        # Before any table, so the key stays top-level.
        table = re.search(r"(?m)^\s*\[", text)
        at = table.start() if table else len(text)
        head = text[:at]
        if head and not head.endswith("\n"):
            head += "\n"
        updated = head + line + "\n" + text[at:]
    if updated == text:
        return path, False
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot set {name} in {path}: the file is not valid TOML ({exc}); fix it") from None
    try:
        parsed = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        parsed = {}
    if parsed.get(name) != value:
        raise ConfigError(f"cannot set {name} in {path}: its value spans several lines; edit the file by hand")
    fd, temp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=home)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(updated)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sync_dir(home)
    return path, True
