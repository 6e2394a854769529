"""Pi: memevo is one TypeScript extension, ``memevo.ts``, where Pi discovers extensions.

Pi (``@mariozechner/pi-coding-agent``) has no command hooks; it loads every ``*.ts`` in

- user: ``~/.pi/agent/extensions/``, or ``$PI_CODING_AGENT_DIR/extensions/`` when that is set;
- project: ``<project>/.pi/extensions/``.

The extension ships as package data (``cli/install/pi_extension/memevo.ts``); install
writes it with the absolute launcher of this memevo in place of the template's ``memevo``,
so Pi runs no PATH lookup or shim on each event. Its events and time limits are below;
see the extension itself and docs/agents/pi.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from cli.install.owned_file import FileTarget
from cli.install.target import user_home

SCOPES = ("user", "project")
FILE_NAME = "memevo.ts"
MARKER = "// memevo-pi-extension:"
# The one line install rewrites: the launcher as a JSON array of strings (valid TypeScript).
_COMMAND_LINE = re.compile(r"^const MEMEVO_COMMAND: string\[\] = (\[.*\]); // memevo:command\b.*$", re.MULTILINE)


def extension_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    """Where the extension goes for ``scope``; project is relative to ``project_dir``."""
    if scope == "user":
        agent_dir = (env.get("PI_CODING_AGENT_DIR") or "").strip()
        if agent_dir:  # Pi expands a leading ~ itself
            return Path(os.path.expanduser(agent_dir)).absolute() / "extensions" / FILE_NAME
        return user_home(env) / ".pi" / "agent" / "extensions" / FILE_NAME
    if scope == "project":
        return project_dir.absolute() / ".pi" / "extensions" / FILE_NAME
    raise ValueError(f"unknown Pi scope {scope!r}")


@cache
def template() -> str:
    """The extension as shipped (its launcher is a bare ``memevo``)."""
    return (resources.files("cli.install") / "pi_extension" / FILE_NAME).read_text(encoding="utf-8")


def render(launcher: Sequence[str]) -> str:
    """The extension with ``launcher`` written in."""
    text = template()
    match = _COMMAND_LINE.search(text)
    if match is None:  # the shipped template always has the line; a test checks it
        raise RuntimeError(f"the packaged {FILE_NAME} has no MEMEVO_COMMAND line")
    literal = json.dumps(list(launcher))  # ASCII JSON is a valid TypeScript string array
    start, end = match.span(1)
    return text[:start] + literal + text[end:]


def launcher_of(text: str) -> list[str] | None:
    """The launcher an installed extension runs, or ``None`` if the text is not memevo's extension."""
    if MARKER not in text:
        return None
    match = _COMMAND_LINE.search(text)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        return None
    return value


TARGET = FileTarget(
    name="pi",
    title="Pi",
    scopes=SCOPES,
    default_scope="user",
    file_path=extension_path,
    render=render,
    launcher_of=launcher_of,
    events={
        "session_start": 30,  # nudges the worker, in the background
        "before_agent_start": 3,  # recall: the prompt waits for it, at most this long
        "agent_end": 30,  # captures the run, in the background
        "session_compact": 30,  # captures the summary, in the background
        "session_shutdown": 30,
    },
    notice="Pi loads extensions when it starts: restart Pi sessions already open (or type /reload in them).",
)
