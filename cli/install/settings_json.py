"""Merging memevo's hook entries into an agent's JSON settings file, for any agent.

Claude Code (``settings.json``), Codex (``hooks.json``) and Gemini CLI (``settings.json``)
all nest hooks the same way::

    {"hooks": {"Event": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}

This module knows that shape and the file, nothing about a particular agent: which entries
are memevo's is a predicate the caller passes in. The rules:

- a file that is not a JSON object, or whose ``hooks`` tree has the wrong shape, is refused
  (:class:`SettingsFileError`, one line) and never rewritten;
- everything that is not memevo's stays as it was, key order included;
- memevo's entry is replaced where it already is (so a stale path is updated, not
  duplicated) and added as a new matcher group at the end of the event otherwise;
- groups and events that only held memevo's entries disappear with them;
- the file is only written when its content changes: a timestamped backup beside it first,
  then a temp file renamed over it, keeping its mode (a symlinked file is written through).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.errors import MemevoError
from memory_core.files.durable_files import sync_dir

HookEntry = dict[str, Any]
IsOurs = Callable[[Any], bool]
GroupOf = Callable[[HookEntry], dict[str, Any]]

BACKUP_INFIX = ".memevo-backup-"
INDENT = 2


class SettingsFileError(MemevoError):
    """An agent's settings file cannot be read, parsed or written; it was left as it was.

    ``problem`` is the short reason without the advice (doctor shows it with its own fix).
    """

    exit_code = 1

    def __init__(self, message: str, problem: str | None = None) -> None:
        self.problem = problem or message
        super().__init__(message)


@dataclass(frozen=True)
class SettingsFile:
    """A settings file as read: ``raw`` is ``None`` when it does not exist yet."""

    path: Path  # as named (what the user sees)
    target: Path  # the file actually read and written (symlinks followed)
    raw: bytes | None
    data: dict[str, Any]

    @property
    def exists(self) -> bool:
        return self.raw is not None

    @property
    def text(self) -> str:
        return "" if self.raw is None else self.raw.decode("utf-8")


def _refuse(path: Path, problem: str) -> SettingsFileError:
    return SettingsFileError(f"{path} {problem}; fix the file and run the command again (nothing was changed)", problem)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_raw(path: Path) -> tuple[Path, bytes | None]:
    """The file ``path`` names (a symlink resolved: memevo writes through it) and its bytes,
    ``None`` when missing; unreadable is a :class:`SettingsFileError`."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        return target, target.read_bytes()
    except FileNotFoundError:
        return target, None
    except OSError as exc:
        raise SettingsFileError(
            f"cannot read {path}: {exc.strerror}; check the file and its permissions",
            f"cannot be read ({exc.strerror})",
        ) from None


def read_settings(path: Path) -> SettingsFile:
    """Read and check ``path``. A missing (or blank) file is an empty object."""
    target, raw = read_raw(path)
    if raw is None:
        return SettingsFile(path, target, None, {})
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(path, "is not UTF-8 text") from None
    if not text.strip():
        return SettingsFile(path, target, raw, {})
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise _refuse(path, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise _refuse(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _refuse(path, "does not hold a JSON object")
    check_hooks_shape(path, data)
    return SettingsFile(path, target, raw, data)


def check_hooks_shape(path: Path, data: Mapping[str, Any]) -> None:
    """Refuse a ``hooks`` tree memevo could not edit safely (and the agent could not read)."""
    if "hooks" not in data:
        return
    hooks = data["hooks"]
    if not isinstance(hooks, dict):
        raise _refuse(path, '"hooks" is not an object')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise _refuse(path, f'"hooks.{event}" is not a list')
        for i, group in enumerate(groups):
            if not isinstance(group, dict):
                raise _refuse(path, f'"hooks.{event}[{i}]" is not an object')
            entries = group.get("hooks", [])
            if not isinstance(entries, list):
                raise _refuse(path, f'"hooks.{event}[{i}].hooks" is not a list')
            for j, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    raise _refuse(path, f'"hooks.{event}[{i}].hooks[{j}]" is not an object')


def find_ours(data: Mapping[str, Any], is_ours: IsOurs) -> dict[str, list[HookEntry]]:
    """memevo's entries by event, in file order (the data must have passed the shape check)."""
    found: dict[str, list[HookEntry]] = {}
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups:
            for entry in group.get("hooks", []):
                if is_ours(entry):
                    found.setdefault(event, []).append(entry)
    return found


def default_group(entry: HookEntry) -> dict[str, Any]:
    """A matcher group that fires on everything: ``{"matcher": "", "hooks": [entry]}``."""
    return {"matcher": "", "hooks": [entry]}


def merge_hooks(
    data: Mapping[str, Any], wanted: Mapping[str, HookEntry], is_ours: IsOurs, group_of: GroupOf = default_group
) -> dict[str, Any]:
    """A copy of ``data`` whose memevo entries are exactly ``wanted`` (event -> entry).

    ``wanted = {}`` removes memevo's entries. Nothing else changes.
    """
    result = copy.deepcopy(dict(data))
    hooks = result.get("hooks") or {}
    placed: set[str] = set()
    merged: dict[str, Any] = {}
    removed_any = False
    for event, groups in hooks.items():
        kept_groups: list[Any] = []
        removed_here = False
        for group in groups:
            entries = group.get("hooks", [])
            if not any(is_ours(entry) for entry in entries):
                kept_groups.append(group)
                continue
            kept: list[Any] = []
            for entry in entries:
                if not is_ours(entry):
                    kept.append(entry)
                elif event in wanted and event not in placed:
                    kept.append(copy.deepcopy(dict(wanted[event])))
                    placed.add(event)
                else:
                    removed_here = True
            if kept:
                kept_groups.append({**group, "hooks": kept})
        removed_any = removed_any or removed_here
        if kept_groups or not removed_here:
            merged[event] = kept_groups
    for event, entry in wanted.items():
        if event not in placed:
            merged.setdefault(event, []).append(group_of(copy.deepcopy(dict(entry))))
    if merged or ("hooks" in result and not removed_any):
        result["hooks"] = merged
    else:
        result.pop("hooks", None)
    return result


def merge_settings(path: Path, data: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with every value of ``extra`` set, nested objects merged key by key.

    ``{"hooksConfig": {"enabled": True}}`` sets only ``hooksConfig.enabled``: the object's
    other keys stay, and a missing object is added at the end. An object on the way that
    holds something else is refused (:class:`SettingsFileError`), never overwritten.
    """
    result = copy.deepcopy(dict(data))

    def merge(into: dict[str, Any], values: Mapping[str, Any], where: str) -> None:
        for key, value in values.items():
            if isinstance(value, Mapping):
                current = into.setdefault(key, {})
                if not isinstance(current, dict):
                    raise _refuse(path, f'"{where}{key}" is not an object')
                merge(current, value, f"{where}{key}.")
            else:
                into[key] = copy.deepcopy(value)

    merge(result, extra, "")
    return result


def render(data: Mapping[str, Any]) -> str:
    """The file's text: 2-space indent, characters as written, a trailing newline."""
    return json.dumps(data, indent=INDENT, ensure_ascii=False) + "\n"


def unified_diff(path: Path, old: str | None, new: str) -> str:
    """A unified diff of the file; ``old`` is ``None`` for a file that does not exist yet."""
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        new.splitlines(),
        fromfile="/dev/null" if old is None else str(path),
        tofile=str(path),
        lineterm="",
    )
    return "\n".join(lines)


def backup_name(target: Path, now: float) -> Path:
    return target.with_name(f"{target.name}{BACKUP_INFIX}{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(now))}")


def _write_new(path: Path, data: bytes, mode: int) -> Path:
    """Create ``path`` (or ``path-N`` if taken) exclusively with ``data``."""
    candidate, n = path, 0
    while True:
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.name}-{n}")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(candidate, mode)
    return candidate


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_settings(file: SettingsFile, text: str, now: float, *, private: bool = False) -> Path | None:
    """Back up (if the file exists) and replace the file with ``text``; returns the backup.

    Refuses, changing nothing, when the file changed on disk since it was read (the agent
    itself writes its settings, e.g. when a permission is granted "always"). ``private``
    (the file holds a secret): the file and its backup are readable by their owner only.
    """
    target = file.target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        current: bytes | None = target.read_bytes() if target.exists() else None
        if current != file.raw:
            raise SettingsFileError(f"{file.path} changed while memevo was editing it; run the command again")
        backup = None
        mode = _default_mode() & (0o600 if private else 0o777)
        if file.raw is not None:
            mode = stat.S_IMODE(target.stat().st_mode)
            if private:
                mode &= 0o600
            backup = _write_new(backup_name(target, now), file.raw, mode)
        replace_atomically(target, text, mode)
    except OSError as exc:
        raise SettingsFileError(
            f"cannot write {file.path}: {exc.strerror or exc}; check the directory's permissions "
            "(the file was not changed)"
        ) from None
    sync_dir(target.parent)
    return backup


def replace_atomically(target: Path, text: str, mode: int) -> None:
    """Replace ``target`` with ``text`` (mode ``mode``) through a synced temporary file renamed
    over it: a reader sees the old file or the new one, never part of either."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".memevo-tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
