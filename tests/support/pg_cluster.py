"""A PostgreSQL server for the tests: the one ``MEMEVO_TEST_DATABASE_URL`` names, or a
throwaway cluster started here from the machine's PostgreSQL binaries on loopback.

``initdb`` refuses to run as root, so as root the cluster is made and run by the ``postgres``
user (``runuser``). The cluster lives in a temporary directory, listens on 127.0.0.1 and a
free port only, runs without fsync (a test server), and is stopped when the session ends.
Each test that runs on PostgreSQL gets a schema of its own (:func:`fresh_schema_url`), so
tests never see each other's rows.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

TEST_URL_VARIABLE = "MEMEVO_TEST_DATABASE_URL"
REQUIRE_VARIABLE = "MEMEVO_REQUIRE_POSTGRES"
# Read at import, before the `home` fixture clears every MEMEVO_ variable for each test.
REQUIRED = {name: os.environ.get(name) == "1" for name in (REQUIRE_VARIABLE, "MEMEVO_REQUIRE_REDIS")}
BASE_URL: str | None = None  # the test database, once the first PostgreSQL test asked for it


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def find_bin() -> Path | None:
    """The newest installed PostgreSQL server binaries (``initdb``, ``pg_ctl``)."""
    override = os.environ.get("MEMEVO_TEST_PG_BIN")
    if override:
        return Path(override)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class Cluster:
    """A started throwaway cluster; :meth:`stop` ends it and removes its files."""

    def __init__(self, directory: Path, bindir: Path, port: int, as_postgres: bool) -> None:
        self.directory = directory
        self.bindir = bindir
        self.port = port
        self.as_postgres = as_postgres
        self.url = f"postgresql://memevo@127.0.0.1:{port}/memevo_test"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [*args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        data = self.directory / "data"
        done = self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "memevo",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()[-500:]}")
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.directory} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        done = self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(self.directory / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )
        if done.returncode != 0:
            log = (
                (self.directory / "server.log").read_text(errors="replace")[-800:]
                if (self.directory / "server.log").exists()
                else ""
            )
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()[-300:]} {log}")
        import psycopg

        with psycopg.connect(f"postgresql://memevo@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE memevo_test")

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)


def start_cluster() -> tuple[Cluster | None, str]:
    """A started cluster, or ``None`` and why one cannot be started on this machine."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed (pip install -e '.[test]')"
    bindir = find_bin()
    if bindir is None:
        return None, "no PostgreSQL server binaries (initdb) on this machine"
    as_postgres = os.geteuid() == 0
    if as_postgres and not shutil.which("runuser"):
        return None, "running as root without runuser, and initdb refuses root"
    directory = Path(tempfile.mkdtemp(prefix="memevo-pg-"))
    if as_postgres:
        try:
            shutil.chown(directory, "postgres", "postgres")
        except (LookupError, PermissionError) as exc:
            shutil.rmtree(directory, ignore_errors=True)
            return None, f"no postgres user to run the cluster as ({exc})"
    cluster = Cluster(directory, bindir, _free_port(), as_postgres)
    try:
        cluster.start()
    except Exception as exc:
        cluster.stop()
        return None, f"could not start a throwaway PostgreSQL: {exc}"
    return cluster, ""


def with_search_path(url: str, schema: str) -> str:
    """``url`` whose sessions work in ``schema`` (libpq's ``options`` parameter)."""
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


def fresh_schema_url(base_url: str) -> tuple[str, str]:
    """A new, empty schema in the test database: ``(url working in it, schema name)``."""
    import psycopg

    schema = "t_" + os.urandom(6).hex()
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return with_search_path(base_url, schema), schema


def drop_schema(base_url: str, schema: str) -> None:
    import psycopg

    try:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    except psycopg.Error:
        pass


def open_other_store(home: Path, name: str):  # type: ignore[no-untyped-def]
    """A second, empty store beside the test's own: ``memory.db`` in ``home/name`` on SQLite;
    on PostgreSQL (while the test runs there) a fresh schema of the test database."""
    from memory_core.store.engines.backend import POSTGRESQL, Backend
    from memory_core.store.engines.database import Store

    if not os.environ.get("MEMEVO_DATABASE_URL") or BASE_URL is None:
        return Store.open(home / name)
    url, _ = fresh_schema_url(BASE_URL)
    return Store.open(home / name, Backend(POSTGRESQL, url, None))


def skip_unless_required(message: str, variable: str = REQUIRE_VARIABLE) -> None:
    """Skip with ``message``; where ``variable`` requires the component (CI), fail instead."""
    import pytest

    if REQUIRED.get(variable):
        pytest.fail(f"{message} ({variable}=1)")
    pytest.skip(message)
