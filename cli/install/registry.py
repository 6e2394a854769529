"""The agents memevo can install hooks into. Adding one: a module with a ``TARGET`` and a line here."""

from __future__ import annotations

from cli.install import claude_code, codex, gemini, pi
from cli.install.owned_file import FileTarget
from cli.install.target import HookTarget
from memory_core.errors import UsageError

AgentTarget = HookTarget | FileTarget  # settings-file hooks, or a file of memevo's own (Pi's extension)

TARGETS: dict[str, AgentTarget] = {
    claude_code.TARGET.name: claude_code.TARGET,
    codex.TARGET.name: codex.TARGET,
    gemini.TARGET.name: gemini.TARGET,
    pi.TARGET.name: pi.TARGET,
}


def agent_names() -> list[str]:
    return list(TARGETS)


def all_scopes() -> list[str]:
    """Every scope any agent has, in first-seen order (for the ``--scope`` choice)."""
    seen: dict[str, None] = {}
    for target in TARGETS.values():
        seen.update(dict.fromkeys(target.scopes))
    return list(seen)


def get_target(name: str) -> AgentTarget:
    try:
        return TARGETS[name]
    except KeyError:
        raise UsageError(f"unknown agent {name!r}; memevo can install into: {', '.join(TARGETS)}") from None


def check_scope(target: AgentTarget, scope: str | None) -> str:
    """``scope`` (default: the agent's default), refused if the agent has no such scope."""
    if scope is None:
        return target.default_scope
    if scope not in target.scopes:
        raise UsageError(f"{target.title} has no {scope!r} scope; use one of: {', '.join(target.scopes)}")
    return scope
