"""Pick the adapter for an input format. Each adapter is one small module."""

from __future__ import annotations

from typing import Any

from cli.hooks.event import HookEvent
from cli.hooks.generic import parse_generic
from memory_core.errors import UsageError


def parse_event(adapter: str, payload: dict[str, Any], event_name: str) -> HookEvent:
    """Normalize ``payload`` with the named adapter."""
    if adapter == "generic":
        return parse_generic(payload, event_name)
    raise UsageError(f"unknown hook format {adapter!r}; use --agent generic")
