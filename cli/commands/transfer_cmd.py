"""`memevo export` and `memevo import`: JSON lines of records and events."""

from __future__ import annotations

import os
from pathlib import Path

import click

from cli.context import emit, json_option, open_store, settings
from memory_core import clock
from memory_core.controls.transfer import export_lines, import_file
from memory_core.errors import UsageError

# An export holds every memory, so a file written by memevo is private like the database.
EXPORT_FILE_MODE = 0o600


@click.command("export")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@json_option
def export_command(file: Path | None, as_json: bool) -> None:
    """Write every memory, block and event as JSON lines to FILE (default: stdout)."""
    written = 0
    if file is not None:
        from memory_core.store.engines.connection import is_state_database_file

        if is_state_database_file(file, settings().home):
            raise UsageError(
                f"{file} is one of memevo's own database files; writing an export there would destroy it. "
                "Choose another path, e.g. memevo-export.jsonl"
            )
    with open_store() as store:
        if file is None:
            for line in export_lines(store.conn):
                click.echo(line)
            return
        try:
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, EXPORT_FILE_MODE)
        except OSError as exc:
            raise UsageError(f"cannot write {file}: {exc.strerror}; choose another path") from None
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for line in export_lines(store.conn):
                out.write(line + "\n")
                written += 1
    emit({"file": str(file), "lines": written}, as_json, lambda d: f"exported {d['lines']} lines to {d['file']}")


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option
def import_command(file: Path, as_json: bool) -> None:
    """Import JSON lines of claims or a previous export; a bad line stops it before any write."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {file}: {exc}; give a UTF-8 JSON lines file") from None
    with open_store() as store, store.transaction() as conn:
        # Split on newlines only: JSON strings may hold other line separators (U+2028).
        report = import_file(conn, text.split("\n"), clock.now())
    emit(
        report.as_dict(),
        as_json,
        lambda d: (
            f"imported {d['added']} memories ({d['already_present']} already present, "
            f"{d['blocked_skipped']} blocked, {d['events_skipped']} events not replayed)"
            + (f"; `memevo undo {d['event_id']}` reverts it" if d["event_id"] else "")
        ),
    )


COMMANDS = [export_command, import_command]
