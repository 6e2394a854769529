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

import sys
from collections.abc import Callable
from pathlib import Path

from cli.hooks.event import HookEvent
from memory_core.errors import UsageError

_MODULES = {
    "generic": "cli.hooks.adapters.generic",
    "claude-code": "cli.hooks.adapters.claude_code",
    "pi": "cli.hooks.adapters.pi",
    "gemini": "cli.hooks.adapters.gemini",
    "codex": "cli.hooks.adapters.codex",
}
ADAPTER_NAMES: tuple[str, ...] = tuple(_MODULES)


TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:  # types only: a hook process defines no protocol classes
    from typing import Any, Protocol

    class Adapter(Protocol):
        def parse(
            self, payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float
        ) -> tuple[HookEvent, ...]: ...

        def render(self, event: HookEvent, output: str) -> str: ...


class ParsedInput(tuple):  # type: ignore[type-arg]
    """The normalized events of one hook call and how their output is printed: ``(adapter,
    events, render)``. A plain tuple with named fields, not a ``NamedTuple``, whose class
    costs each hook process about 0.1 ms to define."""

    __slots__ = ()

    def __new__(
        cls, adapter: str, events: tuple[HookEvent, ...], render: Callable[[HookEvent, str], str]
    ) -> ParsedInput:
        return tuple.__new__(cls, (adapter, events, render))

    @property
    def adapter(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def events(self) -> tuple[HookEvent, ...]:
        return self[1]  # type: ignore[no-any-return]

    @property
    def render(self) -> Callable[[HookEvent, str], str]:
        return self[2]  # type: ignore[no-any-return]


def detect_adapter(payload: dict[str, Any]) -> str:
    """``generic`` for memevo's protocol (and anything unrecognised, which it then refuses
    clearly); otherwise the agent whose native payload this is: ``pi`` (an ``event`` object,
    as memevo.ts wraps it), ``codex``, ``gemini`` or ``claude-code`` (a ``hook_event_name``,
    told apart by the fields only that agent sends)."""
    if "schema" not in payload and isinstance(payload.get("event"), dict):  # Pi's event, wrapped by memevo.ts
        return "pi"
    if "schema" not in payload and "hook_event_name" in payload:
        from cli.hooks.adapters.codex import is_codex_payload  # turn_id without prompt_id, or a rollout

        if is_codex_payload(payload):
            return "codex"
        from cli.hooks.adapters.gemini import is_gemini_payload  # Gemini-only names, or a shared one + timestamp

        return "gemini" if is_gemini_payload(payload) else "claude-code"
    return "generic"


def parse_event(
    adapter: str | None, payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float
) -> ParsedInput:
    """Normalize ``payload`` with the named adapter (detected when ``adapter`` is ``None``)."""
    name = adapter or detect_adapter(payload)
    if name not in _MODULES:
        raise UsageError(f"unknown hook format {name!r}; use --agent {' or --agent '.join(ADAPTER_NAMES)}")
    # ``__import__`` and sys.modules, not ``importlib.import_module``: no ``importlib`` package
    # in a hook process that did not start with it (docs/hooks.md, "Cost").
    __import__(_MODULES[name])
    module = sys.modules[_MODULES[name]]  # an Adapter
    return ParsedInput(name, module.parse(payload, event_arg, home=home, now=now), module.render)
