"""`memevo migrate-to URL`: copy the whole store into an empty database of the other engine.

From SQLite (``memory.db``) into an empty PostgreSQL database, or from PostgreSQL into a new
SQLite file (the way back). The source is only read; the target gets every table, verified
by per-table digests before it commits (memory_core.store.engines.relocate.copy_store).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import click

from cli.context import emit, json_option, settings
from memory_core.errors import UsageError
from memory_core.store.engines.backend import DATABASE_VARIABLE, MASK, Backend, redact, resolve

POSTGRES_SCHEMES = ("postgresql", "postgres")


def _target(url: str) -> tuple[str, Path | None]:
    """``("postgresql", None)`` or ``("sqlite", path)`` for a target URL, or a UsageError."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if sep and scheme.lower() in POSTGRES_SCHEMES:
        if not rest.strip("/"):
            raise UsageError(f"{redact(text)} names no database; use postgresql://USER@HOST[:PORT]/DB")
        return "postgresql", None
    if sep and scheme.lower() == "sqlite":
        if not rest.startswith("/") or len(rest) < 2:
            raise UsageError(f"{text!r} is not an absolute SQLite path; use sqlite:////abs/path/memory.db")
        return "sqlite", Path("/" + rest.lstrip("/"))
    raise UsageError(
        f"unsupported target {redact(text)!r}; use postgresql://USER@HOST[:PORT]/DB "
        "(or sqlite:////abs/path/memory.db from a PostgreSQL store)"
    )


def _open_source(home: Path, current: Backend) -> Any:
    from memory_core.store.engines.database import Store

    if current.is_sqlite:
        path = current.path
        if path is None or not path.exists() or path.stat().st_size == 0:
            raise UsageError(f"there is no memory.db in {home}: nothing to migrate (is MEMEVO_HOME right?)")
    return Store.open_readonly(home)


def _sqlite_file(path: Path, home: Path) -> None:
    """Refuse a SQLite target that exists (or whose directory does not, unless it is the
    state dir, made private here)."""
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-journal")):
        if candidate.exists():
            raise UsageError(
                f"{candidate} exists; migrate-to writes a new file only: choose a path that does not exist "
                "or move that file aside"
            )
    if path.parent == home:
        from memory_core.store.engines.connection import ensure_private_dir

        ensure_private_dir(home)
    if not path.parent.is_dir():
        raise UsageError(f"the directory {path.parent} does not exist; create it first")


def _new_sqlite(path: Path) -> Any:
    """A new private SQLite file in WAL mode (its directory is left as it is)."""
    import sqlite3

    from memory_core.store.engines.connection import make_private

    conn = sqlite3.connect(path, isolation_level=None)
    make_private(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


def _remove_sqlite(path: Path) -> None:
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()


def _next_steps_postgres(url: str, home: Path) -> list[str]:
    shown = redact(url)
    hint = f" (put the password in place of {MASK})" if MASK in shown else ""
    return [
        "stop the worker, `memevo serve` and your agents on this machine while you switch",
        f"set {DATABASE_VARIABLE}={shown}{hint}: in the environment, or as "
        f'database_url = "…" in {home / "config.toml"}',
        "run `memevo doctor`: it checks the server, the schema and the queue",
        "on each machine: pip install 'memevo[postgres]', set the same URL, start `memevo serve` and the "
        "worker (the Procfile has both)",
        "memory.db stays as it is: unset the URL to go back to it (captures made meanwhile live only in PostgreSQL)",
    ]


def _next_steps_sqlite(path: Path, home: Path) -> list[str]:
    steps = ["stop the worker, `memevo serve` and your agents on every machine while you switch"]
    if path != home / "memory.db":
        steps.append(f"move {path} to memory.db in the state dir of the machine that keeps the memory ({home})")
    steps += [
        f"unset {DATABASE_VARIABLE} (and database_url in config.toml) on that machine",
        "run `memevo doctor`, then start the worker again",
        "the PostgreSQL database is unchanged: set the URL again to go back to it",
    ]
    return steps


def _render(data: dict[str, Any]) -> str:
    lines = [
        f"copied the memory from {data['source']} to {data['target']}: {data['rows']:,} rows in "
        f"{len(data['tables'])} tables, identical (per-table digests) in {data['seconds']:.1f} s"
    ]
    lines.append("  " + "  ".join(f"{name} {rows:,}" for name, rows in data["tables"].items()))
    if data.get("size_bytes") is not None:
        lines.append(f"  size on the server: {data['size_bytes'] / 1_048_576:.1f} MiB")
    if data["source_changed"]:
        lines.append(
            "warning: the source changed while it was copied (a hook or worker wrote to it); the copy holds it "
            "as it was when the copy started"
        )
    lines.append(f"{data['source']} is unchanged: it is the way back.")
    lines.append("next:")
    lines += [f"  {n}. {step}" for n, step in enumerate(data["next"], 1)]
    return "\n".join(lines)


@click.command("migrate-to")
@click.argument("url")
@json_option
def migrate_to_command(url: str, as_json: bool) -> None:
    """Copy the whole store into an empty database at URL, verified row for row.

    From SQLite: URL is postgresql://USER[:PASSWORD]@HOST[:PORT]/DB, an empty database.
    From PostgreSQL: URL is sqlite:////abs/path/memory.db, a file that does not exist yet.
    The current store is only read: it stays the way back.
    """
    from memory_core.store.engines.copying import postgres_size, vacuum_analyze
    from memory_core.store.engines.relocate import copy_store

    home = settings().home
    kind, path = _target(url)
    current = resolve(home)
    if current.is_sqlite and kind == "sqlite":
        raise UsageError(
            f"the store is already SQLite (memory.db in {home}); migrate-to copies it to postgresql://USER@HOST/DB"
        )
    if path is not None:
        _sqlite_file(path, home)
    started = time.monotonic()
    data: dict[str, Any] = {"source": current.redacted, "target": redact(url.strip())}
    with _open_source(home, current) as store:
        if kind == "postgresql":
            from memory_core.store.engines import pg

            target = pg.connect(url.strip(), application="memevo-migrate")
            try:
                report = copy_store(store.conn, target)
                copied = time.monotonic()
                vacuum_analyze(target)
                data["size_bytes"] = postgres_size(target)
            finally:
                target.close()
            data["next"] = _next_steps_postgres(url.strip(), home)
            data["setting"] = f"{DATABASE_VARIABLE}={redact(url.strip())}"
        else:
            assert path is not None
            try:
                target = _new_sqlite(path)
                try:
                    report = copy_store(store.conn, target)
                    copied = time.monotonic()
                    vacuum_analyze(target)
                finally:
                    target.close()
            except BaseException:
                _remove_sqlite(path)
                raise
            data["size_bytes"] = None
            data["next"] = _next_steps_sqlite(path, home)
            data["setting"] = f"unset {DATABASE_VARIABLE}"
    data["tables"] = report.tables
    data["rows"] = sum(report.tables.values())
    data["verified"] = True
    data["source_changed"] = report.source_changed
    data["seconds"] = round(copied - started, 3)
    data["vacuum_seconds"] = round(time.monotonic() - copied, 3)
    emit(data, as_json, _render)


COMMANDS = [migrate_to_command]
