"""Shared fixtures. Every test gets its own state directory through MEMEVO_HOME.

The tests that reach the store run on both backends: once on SQLite (``[sqlite]``) and once
on PostgreSQL (``[postgresql]``), each PostgreSQL run in a schema of its own. The server is
the one ``MEMEVO_TEST_DATABASE_URL`` names, else a throwaway cluster this session starts from
the machine's PostgreSQL binaries (tests/support/pg_cluster.py). Where neither is possible the
PostgreSQL runs skip and say why once; with ``MEMEVO_REQUIRE_POSTGRES=1`` (CI) they fail
instead. A test about SQLite itself is marked ``sqlite_only``; one about PostgreSQL alone,
``postgres_only``.

The suite runs in two processes (pytest-xdist, ``-n 2 --dist loadfile`` in pyproject.toml):
each file's tests stay in one process, and the files that take minutes (mostly waiting on
child processes) are handed out first, so neither process is left with one of them at the end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

from memory_core.config import Settings, load_settings
from memory_core.store.engines.database import Store
from tests.support import pg_cluster
from tests.support.fake_model import FakeModelServer, point_at
from tests.support.processes import REPO, memevo_process  # noqa: F401  (re-exported for older imports)

# Property tests explore new examples on every local run; CI (``HYPOTHESIS_PROFILE=ci``, set by
# .ci/run) runs the same derived examples every time, so what lands does not hang on a draw.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SQLITE, POSTGRESQL = "sqlite", "postgresql"
# Test folders whose tests reach the store and run on both backends (unless marked).
BOTH_BACKENDS = ("unit", "recall", "worker", "progress", "integration", "capture", "reliability", "doctor", "mcp", "ui")
_STORE_WORDS = re.compile(r"\bStore\b|\bstore\b|cli_run|memevo_process|seeded|\bhome\b")
_module_reaches_store: dict[str, bool] = {}
# Read once, before the `home` fixture clears every MEMEVO_ variable for each test.
_GIVEN_TEST_URL = os.environ.get(pg_cluster.TEST_URL_VARIABLE, "").strip()
_REQUIRE_POSTGRES = os.environ.get(pg_cluster.REQUIRE_VARIABLE) == "1"


# The longest files, longest first (`pytest --durations`): started first, they overlap the rest.
RUN_FIRST = (
    "reliability/test_reliability.py",
    "integration/test_worker_process.py",
    "agents/test_learn_with_cli.py",
    "recall/test_pruning_exact.py",
    "unit/test_history_property.py",
    "worker/test_first_call.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`RUN_FIRST` first, in that order; the rest as collected (a stable
    sort: every process of a run sees the same order, as pytest-xdist requires)."""

    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next((n for n, name in enumerate(RUN_FIRST) if path.endswith("tests/" + name)), len(RUN_FIRST))

    items.sort(key=rank)


def _reaches_store(path: Path) -> bool:
    key = str(path)
    if key not in _module_reaches_store:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            text = ""
        _module_reaches_store[key] = bool(_STORE_WORDS.search(text))
    return _module_reaches_store[key]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    path = Path(str(metafunc.definition.path))
    folder = path.parent.name
    marks = {mark.name for mark in metafunc.definition.iter_markers()}
    if "postgres_only" in marks:
        backends = [POSTGRESQL]
    elif "sqlite_only" in marks or folder not in BOTH_BACKENDS or not _reaches_store(path):
        backends = [SQLITE]
    else:
        backends = [SQLITE, POSTGRESQL]
    metafunc.parametrize("backend", backends, indirect=True, ids=backends if len(backends) > 1 else None)


class _Server:
    url: str | None = None
    why_not: str = ""
    cluster: pg_cluster.Cluster | None = None
    tried = False


def postgres_base_url() -> str:
    """The test database's URL, starting a throwaway cluster on first use; skips (or fails,
    where PostgreSQL is required) when none can be had."""
    if not _Server.tried:
        _Server.tried = True
        if _GIVEN_TEST_URL:
            _Server.url = _GIVEN_TEST_URL
        else:
            cluster, why = pg_cluster.start_cluster()
            _Server.cluster, _Server.url, _Server.why_not = cluster, cluster.url if cluster else None, why
    if _Server.url is None:
        message = f"PostgreSQL tests skipped: {_Server.why_not}"
        if _REQUIRE_POSTGRES:
            pytest.fail(message + f" ({pg_cluster.REQUIRE_VARIABLE}=1)")
        pytest.skip(message)
    return _Server.url


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _Server.cluster is not None:
        _Server.cluster.stop()
        _Server.cluster = None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _Server.tried and _Server.url is None:
        terminalreporter.write_line(f"memevo: PostgreSQL tests skipped: {_Server.why_not}", yellow=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", SQLITE)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str) -> Path:
    """A fresh, private state dir; the user's real one is never touched. On PostgreSQL the
    store is a fresh schema of the test database, named by MEMEVO_DATABASE_URL."""
    state = tmp_path / "memevo-home"
    monkeypatch.setenv("MEMEVO_HOME", str(state))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith("MEMEVO_") and name != "MEMEVO_HOME":
            monkeypatch.delenv(name)
    if backend == POSTGRESQL:
        base = postgres_base_url()
        pg_cluster.BASE_URL = base
        url, schema = pg_cluster.fresh_schema_url(base)
        monkeypatch.setenv("MEMEVO_DATABASE_URL", url)
        yield state
        pg_cluster.drop_schema(base, schema)
        return
    yield state


@pytest.fixture
def pg_url(home: Path, backend: str) -> str:
    """The store URL of a test that runs on PostgreSQL only."""
    if backend != POSTGRESQL:  # a test that is never run on SQLite says so, and is not skipped there
        pytest.fail("a test using pg_url needs @pytest.mark.postgres_only")
    return os.environ["MEMEVO_DATABASE_URL"]


@pytest.fixture
def settings(home: Path) -> Settings:
    return load_settings()


@pytest.fixture
def store(home: Path):
    s = Store.open(home)
    yield s
    s.close()


@pytest.fixture
def cli_run():
    """Run a memevo command in-process; returns the click Result."""
    from cli.main import cli

    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch):
    """A loopback model server the settings point at."""
    with FakeModelServer() as server:
        point_at(server, monkeypatch)
        yield server
