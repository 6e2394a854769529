"""Entry-point plumbing shared by commands: settings, store opening, output."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from memory_core.config import Settings
    from memory_core.store.engines.database import Store

F = TypeVar("F", bound=Callable[..., Any])


def settings() -> Settings:
    """Settings for this invocation, read once from the environment and config file."""
    ctx = click.get_current_context()
    root = ctx.find_root()
    if not isinstance(root.obj, dict):
        root.obj = {}
    if "settings" not in root.obj:
        from memory_core.config import load_settings

        root.obj["settings"] = load_settings()
    return root.obj["settings"]


def open_store() -> Store:
    """Open (and migrate) the memory database of the configured state dir."""
    from memory_core.store.engines.database import Store

    return Store.open(settings().home)


def json_option(func: F) -> F:
    """Adds ``--json``: machine-readable output on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(func)


def emit(data: Any, as_json: bool, render_text: Callable[[Any], str]) -> None:
    """Print ``data`` as JSON or through its text renderer."""
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))
    else:
        click.echo(render_text(data))
