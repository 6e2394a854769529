"""`memevo restore [BACKUP]`: put a copy from ``backups/`` back in place of a damaged
``memory.db``; without BACKUP, list the copies and whether each passes its check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cli.context import emit, json_option, settings
from memory_core import clock
from memory_core.errors import UsageError


def _render_list(data: dict[str, Any]) -> str:
    if not data["backups"]:
        return f"no backups in {data['directory']} (the worker makes one a day; migrations make one first)"
    lines = [f"backups in {data['directory']}, newest first:"]
    for item in data["backups"]:
        verdict = f"ok, schema {item['schema_version']}" if item["ok"] else f"FAILS ITS CHECK: {item['detail']}"
        lines.append(f"  {item['name']}  {item['made_at']}  {verdict}")
    lines.append("memevo restore NAME  # keeps the damaged memory.db in damaged/, then puts NAME back")
    return "\n".join(lines)


def _render_restored(data: dict[str, Any]) -> str:
    kept = ", ".join(data["kept_aside"]) or "nothing (there was no memory.db)"
    spooled = data["spool"]
    waiting = ""
    if spooled["delivered"] or spooled["left"]:
        waiting = f" Stored {spooled['delivered']} capture(s) the hooks kept in spool/ while it was damaged"
        waiting += f"; {spooled['left']} still wait (logs/hooks.log says why)." if spooled["left"] else "."
    return (
        f"restored {data['backup']} (schema {data['schema_version']}, {data['how']}); the damaged files are kept "
        f"as {kept}.{waiting} Other captures made since that copy are not in it; `memevo doctor` checks the "
        "store again."
    )


def _deliver_spool(home: Path) -> dict[str, int]:
    """Store the captures the hooks kept in ``spool/`` while ``memory.db`` was damaged
    (cli.hooks.damaged_store.keep_for_restore), each at its original time; a running
    `memevo serve` may be delivering them at this moment: wait for it."""
    from cli.hooks.spool_drainer import deliver_kept

    delivered, aside, left, _ = deliver_kept(home, "restore", wait=SPOOL_WAIT_SECONDS)
    return {"delivered": delivered, "set_aside": aside, "left": left}


SPOOL_WAIT_SECONDS = 60.0


@click.command("restore")
@click.argument("backup", required=False)
@json_option
def restore_command(backup: str | None, as_json: bool) -> None:
    """Put BACKUP (a name in backups/ or a path) back as memory.db, keeping the damaged file
    in damaged/, then store the captures hooks kept in spool/ meanwhile; without BACKUP, list
    the copies in backups/ and check each."""
    from memory_core.store.engines.backend import resolve
    from memory_core.store.safekeeping.backups import backups_dir, check_backup, list_backups
    from memory_core.store.schema import migrations

    cfg = settings()
    current = resolve(cfg.home)
    if not current.is_sqlite or current.path is None:
        raise UsageError(
            "restore puts back a copy of the SQLite store; this state dir uses PostgreSQL: restore the "
            "server's own backup, or load a backups/ file into an empty database with `memevo migrate-to`"
        )
    if backup is None:
        directory = backups_dir(cfg.home)
        found = []
        for _, path in list_backups(directory):
            checked = check_backup(path)
            found.append(
                {
                    "name": path.name,
                    "path": str(path),
                    "made_at": clock.iso(checked.made_at),
                    "ok": checked.ok,
                    "schema_version": checked.schema_version,
                    "detail": checked.detail,
                }
            )
        emit({"directory": str(directory), "backups": found}, as_json, _render_list)
        return
    from memory_core.store.safekeeping.restore import restore_backup

    done = restore_backup(cfg.home, current.path, backup, migrations.SCHEMA_VERSION, clock.now())
    emit(
        {
            "backup": str(done.backup),
            "schema_version": done.schema_version,
            "kept_aside": [str(path) for path in done.kept_aside],
            "how": done.how,
            "spool": _deliver_spool(cfg.home),
        },
        as_json,
        _render_restored,
    )


COMMANDS = [restore_command]
