"""Pick the adapter for an input format; each adapter is one small module.

An adapter module has two functions:

* ``parse(payload, event_arg, *, home, now) -> tuple[HookEvent, ...]`` turns the agent's
  JSON into normalized events: none for an event memevo ignores, two when one agent event
  means two things (Claude Code's SessionStart after a compaction);
* ``render(event, output) -> str`` decides what the agent gets on stdout for the text a
  handler returned ("" prints nothing).

Without ``--agent`` the format is detected: a ``schema`` key is memevo's generic protocol,
otherwise a ``hook_event_name`` is Claude Code's native payload.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from cli.hooks.event import HookEvent
from memory_core.errors import UsageError

_MODULES = {"generic": "cli.hooks.adapters.generic", "claude-code": "cli.hooks.adapters.claude_code"}
ADAPTER_NAMES: tuple[str, ...] = tuple(_MODULES)


class Adapter(Protocol):
    def parse(self, payload: dict[str, Any], event_arg: str | None, *, home: Path,
              now: float) -> tuple[HookEvent, ...]: ...

    def render(self, event: HookEvent, output: str) -> str: ...


@dataclass(frozen=True)
class ParsedInput:
    """The normalized events of one hook call and how their output is printed."""

    adapter: str
    events: tuple[HookEvent, ...]
    render: Callable[[HookEvent, str], str]


def detect_adapter(payload: dict[str, Any]) -> str:
    """``generic`` for memevo's protocol (and anything unrecognised, which it then refuses
    clearly); ``claude-code`` for a payload naming a ``hook_event_name`` and no ``schema``."""
    if "schema" not in payload and "hook_event_name" in payload:
        return "claude-code"
    return "generic"


def parse_event(adapter: str | None, payload: dict[str, Any], event_arg: str | None, *, home: Path,
                now: float) -> ParsedInput:
    """Normalize ``payload`` with the named adapter (detected when ``adapter`` is ``None``)."""
    name = adapter or detect_adapter(payload)
    if name not in _MODULES:
        raise UsageError(f"unknown hook format {name!r}; use --agent {' or --agent '.join(ADAPTER_NAMES)}")
    module = cast(Adapter, importlib.import_module(_MODULES[name]))
    return ParsedInput(name, module.parse(payload, event_arg, home=home, now=now), module.render)
