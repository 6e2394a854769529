"""`memevo exclude PATH` / `memevo include PATH`: directories whose sessions are never read."""

from __future__ import annotations

import os
from typing import Any

import click

from cli.context import emit, json_option
from memory_core.paths import state_home


def render_edit(result: dict[str, Any], verb: str) -> str:
    done = "" if result["changed"] else " (it was already so)"
    lines = [f"{verb} {result['path']}{done}: exclude = {result['exclude']} in {result['config_file']}"]
    if result["from_environment"]:
        lines.append(f"MEMEVO_EXCLUDE is set and wins over the file: in force now {result['in_force']}")
    if verb == "included" and result["excluded_by"]:
        lines.append(
            f"still excluded by {result['excluded_by']!r}; `memevo include {result['excluded_by']}` removes that"
        )
    return "\n".join(lines)


@click.command("exclude")
@click.argument("path")
@json_option
def exclude_command(path: str, as_json: bool) -> None:
    """Never read sessions in PATH (a directory or a glob, `~` expanded) or under it: no
    capture by hooks or backfill, no digest. Writes the exclude setting of config.toml."""
    from memory_core.controls.exclusion_edit import exclude_directory

    result = exclude_directory(state_home(), path, os.getcwd())
    emit(result, as_json, lambda r: render_edit(r, "excluded"))


@click.command("include")
@click.argument("path")
@json_option
def include_command(path: str, as_json: bool) -> None:
    """Read sessions in PATH again: removes it from the exclude setting of config.toml (and
    says when another glob still excludes it)."""
    from memory_core.controls.exclusion_edit import include_directory

    result = include_directory(state_home(), path, os.getcwd())
    emit(result, as_json, lambda r: render_edit(r, "included"))


COMMANDS = [exclude_command, include_command]
