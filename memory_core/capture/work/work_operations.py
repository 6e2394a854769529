"""What a tool call did, in memevo's terms: a commit, a push, a test run … or a lookup.

A turn's operations arrive as the agent named them (``Bash`` with a command line, ``Edit``
with a JSON input, …). This module reads the tool name and input and says which kind of
work it was, how much it matters as progress evidence, which directories it named
explicitly (``cd``, ``git -C``, file paths) and whether it belongs to memevo itself. A shell
tool's command line is handed to :mod:`memory_core.capture.work.shell_commands`; the categories
and :class:`Reading` live in :mod:`memory_core.capture.work.work_vocabulary` and are re-exported
here. Only the *input* of a call is read, never its output: tool output never decides what
a turn was about.

Unknown commands are not work: a command memevo does not recognise cannot make a turn a
progress source (a known limit, like a hard kill before the turn ends).
"""

from __future__ import annotations

import json
import re
import shlex

from memory_core.capture.work.shell_commands import read_command
from memory_core.capture.work.work_vocabulary import IMPORTANCE, INSPECT, Reading

__all__ = ["IMPORTANCE", "INSPECT", "Reading", "absolute_paths", "read_command", "read_operation"]

_SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "sh",
        "zsh",
        "terminal",
        "run_command",
        "execute_command",
        "exec",
        "exec_command",
        "run_shell_command",
        "local_shell",
        "command",
        "run_terminal_cmd",
        "powershell",
        "container.exec",
    }
)
_WRITE_TOOLS = frozenset(
    {
        "write",
        "edit",
        "multiedit",
        "notebookedit",
        "apply_patch",
        "applypatch",
        "write_file",
        "edit_file",
        "create_file",
        "replace_in_file",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "patch",
        "delete_file",
        "move_file",
        "rename_file",
        "insert_edit_into_file",
        "search_replace",
        "replace",  # Gemini CLI's edit tool
    }
)
_VIEW_COMMANDS = frozenset({"view", "read", "list"})
_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "filename", "directory", "cwd")
_ABSOLUTE = re.compile(r"(?:^|(?<=[\s\"'=(:,]))(~?/[^\s\"'`<>|;&()*?,]+)")


def read_operation(tool: str, input_text: str) -> Reading:
    """Classify one tool call by its name and input (never by its output)."""
    name = tool.strip()
    lowered = name.lower()
    if "memevo" in lowered or lowered in ("memory_recall", "mcp__memevo__memory_recall"):
        return Reading(INSPECT, own=True, label=name)
    data = _json_object(input_text)
    if _is_shell_tool(lowered):
        command = input_text
        if data is not None:
            command = str(data.get("command") or data.get("cmd") or data.get("script") or "")
            if isinstance(data.get("command"), list):
                command = shlex.join(str(part) for part in data["command"])
        reading = read_command(command)
        workdir = data.get("workdir") or data.get("cwd") if data is not None else None
        if isinstance(workdir, str) and workdir:
            reading = Reading(reading.category, reading.own, (("cd", workdir), *reading.directories), reading.label)
        return reading
    bare = lowered.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    paths = tuple(("file", p) for p in _input_paths(data, input_text))
    if bare in _WRITE_TOOLS:
        command = str(data.get("command", "")).lower() if data is not None else ""
        category = INSPECT if command in _VIEW_COMMANDS else "write"
        return Reading(category, directories=paths, label=name)
    return Reading(INSPECT, directories=paths, label=name)


def _is_shell_tool(lowered: str) -> bool:
    return lowered in _SHELL_TOOLS or "bash" in lowered or "shell" in lowered


def _json_object(text: str) -> dict | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _input_paths(data: dict | None, text: str) -> list[str]:
    found: list[str] = []
    if data is not None:
        for key in _PATH_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value:
                found.append(value)
    else:  # a clipped input is no longer JSON: look for the keys by pattern
        for key in _PATH_KEYS:
            match = re.search(rf'"{key}"\s*:\s*"([^"\\]+)"', text)
            if match:
                found.append(match.group(1))
    return list(dict.fromkeys(found))


def absolute_paths(text: str) -> list[str]:
    """Absolute (or ``~``) paths written in ``text``, trailing punctuation removed."""
    found = []
    for match in _ABSOLUTE.finditer(text):
        path = match.group(1).rstrip(".,;:!?)]}'\"")
        if len(path) > 1 and path not in ("//",):
            found.append(path)
    return list(dict.fromkeys(found))
