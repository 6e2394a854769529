"""Doctor checks every install target shares, whatever it writes (hook settings or a file)."""

from __future__ import annotations

from typing import Any

from memory_core.reports.health import OK, WARN, make_check


def not_installed(name: str, title: str, what: str, scopes: list[dict[str, Any]]) -> dict[str, Any]:
    """``ok``: not using an agent is fine; doctor warns only when no agent at all is connected."""
    return make_check(
        name, OK, f"{title} {what} not installed (to use it: memevo install {name})", scopes=scopes, installed=False
    )


def several_scopes(name: str, title: str, installed: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A warning when memevo is installed in more than one scope: the agent runs each copy."""
    if len(installed) < 2:
        return None
    scopes = [info["scope"] for info in installed]
    return make_check(
        name,
        WARN,
        f"installed in {' and '.join(scopes)} scopes: {title} runs them all, so memevo runs more than once per event",
        " && ".join(f"memevo uninstall {name} --scope {scope}" for scope in scopes[1:]),
        scopes=scopes,
    )
