"""Install a pinned agent CLI from the npm registry into the agent cache and run it
headless, for any agent: what :mod:`tests.support.agent_clis` (Claude Code),
:mod:`~tests.support.codex_cli`, :mod:`~tests.support.gemini_cli` and
:mod:`~tests.support.pi_cli` share.

One :class:`NpmCli` names a package, its pinned version and the binary it ships;
``install()`` puts it into ``<cache>/<name>`` (the cache is :func:`cache_dir`:
``$MEMEVO_AGENT_CACHE`` or ``~/.cache/memevo-agent-clis``) once, under a file lock so
concurrent test processes install it only once, through a staging prefix moved into place
only after the binary runs, so an interrupted install never leaves a broken cache.
:func:`install_main` is each module's ``python -m … install | path | version``.

For running: :func:`agent_environment` (the inherited environment without what a run must
not see, node on PATH, a throwaway HOME and XDG directories, loopback not proxied),
:func:`run_headless` (one run, its process group killed on timeout), :func:`command_line`
(a shell-quoted hook command) and :func:`hook_settings` (settings JSON running command hooks);
:class:`AgentRunner` and :class:`AgentRun` are what every agent's runner and run result
share, each agent's module adding its command line, environment and output parsing.

In a test::

    GEMINI = NpmCli(name="gemini", package="@google/gemini-cli", version="0.61.0",
                    binary_path="node_modules/.bin/gemini")
    binary = GEMINI.require()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1

Only the registry is contacted, by ``npm install``. Only the standard library is used
(pytest is imported by :meth:`NpmCli.require` alone).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

CACHE_ENV = "MEMEVO_AGENT_CACHE"
REQUIRE_ENV = "MEMEVO_REQUIRE_AGENT_CLIS"
INSTALL_TIMEOUT = 900.0

# The test suite's autouse fixture removes MEMEVO_* variables before each test; these
# settings are read when this module is imported (at collection) so they still count.
_STARTUP_ENV = {name: os.environ[name] for name in (CACHE_ENV, REQUIRE_ENV) if name in os.environ}
PROXY_VARS = frozenset(
    {"http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy", "npm_config_proxy", "npm_config_https_proxy"}
)
_STACK_LINE = re.compile(r"^(npm (error|ERR!))?\s+at ")


class AgentCliUnavailable(RuntimeError):
    """The pinned CLI is not installed and could not be installed."""


def _setting(name: str) -> str | None:
    return os.environ.get(name) or _STARTUP_ENV.get(name) or None


def cache_dir() -> Path:
    """Where agent CLIs are installed: ``$MEMEVO_AGENT_CACHE`` or ``~/.cache/memevo-agent-clis``."""
    configured = _setting(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memevo-agent-clis"


def agent_clis_required() -> bool:
    """Whether a missing CLI must fail the tests (``MEMEVO_REQUIRE_AGENT_CLIS=1``, set by CI)."""
    return (_setting(REQUIRE_ENV) or "").strip().lower() in {"1", "true", "yes"}


@contextlib.contextmanager
def install_lock(directory: Path, name: str) -> Iterator[None]:
    """An exclusive lock on ``<directory>/<name>.lock`` while installing ``name``."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / f"{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def npm_install(prefix: Path, spec: str, *, timeout: float = INSTALL_TIMEOUT) -> None:
    """``npm install --prefix PREFIX SPEC`` quietly; raises :class:`AgentCliUnavailable` with
    npm's message (its stack trace dropped) on failure."""
    npm = shutil.which("npm")
    if npm is None:
        raise AgentCliUnavailable(f"npm is not on PATH; Node.js and npm are needed to install {spec}")
    command = [
        npm,
        "install",
        "--prefix",
        str(prefix),
        spec,
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
        "--loglevel=error",
        "--fetch-retries=1",
        "--fetch-retry-mintimeout=2000",
        "--fetch-retry-maxtimeout=10000",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AgentCliUnavailable(f"`npm install {spec}` took over {timeout:.0f} s") from None
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if not _STACK_LINE.match(ln)]
        tail = "\n".join(line for line in lines[:8] if line.strip())[:1500]
        raise AgentCliUnavailable(f"`npm install {spec}` failed (exit {done.returncode}): {tail}")


@dataclass
class NpmCli:
    """One agent CLI published on npm, pinned to ``version``.

    ``binary_path`` is the binary relative to the install prefix (``binaries``, if given,
    lists the binaries to try in a prefix instead); ``version_check`` runs it and says
    whether it works (default: ``BINARY --version`` prints the version), with ``env`` added
    to that run (switches that keep it offline); ``title`` names the CLI in messages.
    """

    name: str  # the cache subdirectory: "gemini"
    package: str  # "@google/gemini-cli"
    version: str  # "0.61.0"
    binary_path: str  # "node_modules/.bin/gemini"
    env: Mapping[str, str] = field(default_factory=dict)
    version_check: Callable[[Path, str], bool] | None = None
    binaries: Callable[[Path], list[Path]] | None = None
    title: str = ""
    _verified: Path | None = field(default=None, init=False, repr=False)
    _failure: str | None = field(default=None, init=False, repr=False)

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    def prefix(self) -> Path:
        """The npm prefix holding the pinned package: ``<cache>/<name>``."""
        return cache_dir() / self.name

    def installed_version(self, prefix: Path | None = None) -> str | None:
        manifest = (prefix or self.prefix()) / "node_modules" / self.package / "package.json"
        try:
            return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
        except (OSError, ValueError):
            return None

    def _runs(self, binary: Path) -> bool:
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            return False
        if self.version_check is not None:
            return self.version_check(binary, self.version)
        env = inherited_environment(lambda name: name.upper().startswith("MEMEVO_"))
        done = run_version(binary, {**env, **self.env})
        return done is not None and self.version in done.stdout

    def installed_binary(self, prefix: Path | None = None) -> Path | None:
        """The pinned CLI's binary if it is installed and runs, else ``None``."""
        prefix = prefix or self.prefix()
        if self.installed_version(prefix) != self.version:
            return None
        candidates = self.binaries(prefix) if self.binaries is not None else [prefix / self.binary_path]
        return next((binary for binary in candidates if self._runs(binary)), None)

    def install(self, *, force: bool = False, timeout: float = INSTALL_TIMEOUT) -> Path:
        """Install the pinned CLI unless it is there already; return its binary."""
        prefix = self.prefix()
        if not force and (binary := self.installed_binary(prefix)):
            return binary
        with install_lock(prefix.parent, self.name):
            if not force and (binary := self.installed_binary(prefix)):
                return binary  # another process installed it while we waited
            staging = prefix.with_name(f"{prefix.name}.installing-{os.getpid()}")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            try:
                npm_install(staging, self.spec, timeout=timeout)
                if self.installed_binary(staging) is None:
                    raise AgentCliUnavailable(f"{self.spec} installed but its binary does not run here")
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            shutil.rmtree(prefix, ignore_errors=True)
            os.replace(staging, prefix)
        binary = self.installed_binary(prefix)
        if binary is None:
            # npm's .bin links are relative, so the moved prefix still runs; anything else is a bug.
            raise AgentCliUnavailable(f"{self.package} vanished from {prefix} after installing")
        return binary

    def binary(self) -> Path:
        """The binary, installing it first if needed; a failure is remembered for the process."""
        if self._verified is not None and self._verified.exists():
            return self._verified
        if self._failure is not None:
            raise AgentCliUnavailable(self._failure)
        try:
            self._verified = self.install()
        except AgentCliUnavailable as exc:
            self._failure = str(exc)
            raise
        return self._verified

    def require(self) -> Path:
        """:meth:`binary` for tests: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
        import pytest

        try:
            return self.binary()
        except AgentCliUnavailable as exc:
            message = f"{self.title or self.package} CLI unavailable: {exc}"
            if agent_clis_required():
                pytest.fail(f"{message} ({REQUIRE_ENV}=1 makes this an error)", pytrace=False)
            pytest.skip(message)


def inherited_environment(dropped: Callable[[str], bool]) -> dict[str, str]:
    """This process's environment without the variables ``dropped`` names."""
    return {k: v for k, v in os.environ.items() if not dropped(k)}


def run_version(binary: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str] | None:
    """``BINARY --version`` with exactly ``env`` (a minute at most), or ``None`` if it could not
    run or exited non-zero."""
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=dict(env),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done if done.returncode == 0 else None


def install_main(cli: NpmCli, module: str, argv: list[str] | None = None) -> int:
    """Command-line entry of ``python -m MODULE``: ``install`` (default, ``--force`` to
    reinstall; prints the binary's path), ``path`` or ``version``."""
    parser = argparse.ArgumentParser(
        prog=f"python -m {module}",
        description=f"Install the pinned {cli.title or cli.package} CLI used by the end-to-end tests.",
    )
    parser.add_argument("action", nargs="?", choices=["install", "path", "version"], default="install")
    parser.add_argument("--force", action="store_true", help="reinstall even if the pinned version is present")
    args = parser.parse_args(argv)
    if args.action == "version":
        print(cli.spec)
        return 0
    if args.action == "path":
        binary = cli.installed_binary()
        if binary is None:
            print(f"{cli.spec} is not installed in {cli.prefix()}", file=sys.stderr)
            return 1
        print(binary)
        return 0
    try:
        binary = cli.install(force=args.force)
    except AgentCliUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(binary)
    return 0


# -- running it ---------------------------------------------------------------------------------


def dropping(prefixes: tuple[str, ...], names: Iterable[str] = ()) -> Callable[[str], bool]:
    """A test of inherited variables a run must not see: those starting with ``prefixes`` or
    named in ``names`` (upper-cased), ``NODE_OPTIONS``, ``DEBUG`` and the proxies (the CLI
    must only reach the loopback fake)."""
    dropped_names = {"NODE_OPTIONS", "DEBUG", *names}

    def dropped(name: str) -> bool:
        upper = name.upper()
        return upper.startswith(prefixes) or name.lower() in PROXY_VARS or upper in dropped_names

    return dropped


def path_with_node(path: str) -> str:
    """``path`` with node's directory (npm launchers are node scripts) and this Python's first."""
    parts = [str(Path(sys.executable).parent)]
    node = shutil.which("node")
    if node:
        parts.insert(0, str(Path(node).resolve().parent))
    return os.pathsep.join([*parts, path])


def agent_environment(
    home: Path, dropped: Callable[[str], bool], settings: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a headless run with ``home`` as HOME: the inherited one without what
    ``dropped`` names, node first on PATH, the XDG directories under ``home``, loopback not
    proxied; then the agent's ``settings`` and ``extra``."""
    env = inherited_environment(dropped)
    env["PATH"] = path_with_node(env.get("PATH", os.defpath))
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            **settings,
        }
    )
    env.update(extra or {})
    return env


def kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL the process group of ``process`` (started with ``start_new_session``)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def run_headless(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float, what: str
) -> tuple[int, str, str, float]:
    """Run ``argv`` in its own process group and wait: ``(returncode, stdout, stderr, seconds)``.

    On timeout the whole group is killed and :class:`AssertionError` raised, naming ``what``
    and the output so far.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=str(cwd),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        stdout, stderr = process.communicate()
        raise AssertionError(
            f"{what} took over {timeout:.0f}s\n--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"
        ) from None
    finally:
        if process.poll() is None:
            kill_group(process)
            process.wait()
    return process.returncode, stdout, stderr, time.monotonic() - started


def command_line(*argv: str | os.PathLike[str]) -> str:
    """A shell-quoted hook ``command`` from an argument list."""
    return shlex.join(str(a) for a in argv)


def hook_settings(
    hooks: Mapping[str, str | Sequence[str]], *, matcher: str = "", timeout: float | None = 30
) -> dict[str, Any]:
    """Settings JSON running command hooks: ``{"Stop": "cmd", "UserPromptSubmit": ["a", "b"]}``
    (``timeout`` in the agent's unit: seconds for Claude Code and Codex, milliseconds for Gemini)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event, commands in hooks.items():
        entries = []
        for command in [commands] if isinstance(commands, str) else commands:
            entry: dict[str, Any] = {"type": "command", "command": command}
            if timeout is not None:
                entry["timeout"] = timeout
            entries.append(entry)
        out[event] = [{"matcher": matcher, "hooks": entries}]
    return {"hooks": out}


def json_objects(texts: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON objects among ``texts`` (each parsed whole), in order; anything else is skipped."""
    for text in texts:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def write_json(path: Path, data: Mapping[str, Any], *, end: str = "") -> Path:
    """Write ``data`` to ``path`` as indented JSON followed by ``end``, creating its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + end, encoding="utf-8")
    return path


@dataclass(frozen=True)
class AgentRun:
    """One finished headless run of an agent CLI; each agent's subclass adds what it reads
    from the output and names the ``program`` in :meth:`describe`."""

    program: ClassVar[str] = "agent"

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    duration: float

    @property
    def is_error(self) -> bool:
        """Whether the output reports an error (``False`` unless the agent's subclass reads one)."""
        return False

    def describe(self) -> str:
        """Exit code, stdout and stderr, for assertion messages."""
        return (
            f"{self.program} exited {self.returncode} after {self.duration:.1f}s\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


@dataclass(frozen=True)
class JsonOutputRun(AgentRun):
    """A run that prints one JSON object as its result (``output``, ``None`` if it printed
    none), naming its session in ``session_id`` and an error in :attr:`error_key`."""

    error_key: ClassVar[str] = "error"

    output: dict[str, Any] | None

    def text(self, key: str) -> str:
        """The output's ``key`` as text (``""`` if absent or empty)."""
        return str((self.output or {}).get(key) or "")

    @property
    def session_id(self) -> str | None:
        """The session the run belonged to."""
        return self.text("session_id") or None

    @property
    def is_error(self) -> bool:
        """Whether the CLI reported an error (or printed no result)."""
        return self.output is None or bool(self.output.get(self.error_key))


RunT = TypeVar("RunT", bound=AgentRun)


class AgentRunner(Generic[RunT]):
    """Runs one agent CLI headless against a loopback fake at ``base_url``.

    ``home`` is the throwaway HOME and ``cwd`` the project directory (both created); ``env``
    is added to every run (e.g. ``MEMEVO_HOME`` for the hooks); ``binary`` is the CLI to run
    (default: :attr:`cli`'s, installed if needed); ``timeout`` bounds each run (default
    :attr:`default_timeout` seconds). An agent's subclass names its :attr:`cli` and
    :attr:`what`, builds its command line, environment (:meth:`_environment`) and result
    (:meth:`_result`), sets up ``home`` in :meth:`_prepare`, and has ``run`` call :meth:`_run`.
    """

    cli: ClassVar[NpmCli]
    what: ClassVar[str]  # how a run is named in a timeout's message: "claude -p"
    default_timeout: ClassVar[float] = 60.0

    def __init__(
        self,
        base_url: str,
        *,
        home: Path,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        binary: Path | None = None,
        timeout: float | None = None,
    ) -> None:
        self.base_url = base_url
        self.home = Path(home)
        self.cwd = Path(cwd)
        self.env = dict(env or {})
        self.binary = Path(binary) if binary is not None else None
        self.timeout = self.default_timeout if timeout is None else timeout
        self._prepare()
        self.cwd.mkdir(parents=True, exist_ok=True)

    @classmethod
    def for_test(cls, base_url: str, tmp_path: Path, **kwargs: Any) -> Self:
        """A runner with HOME ``tmp_path/home`` and project ``tmp_path/project``."""
        return cls(base_url, home=tmp_path / "home", cwd=tmp_path / "project", **kwargs)

    def _prepare(self) -> None:
        """Set up ``home`` before any run; by default ``home/.tmp``, where an agent's
        environment points its temporary files."""
        (self.home / ".tmp").mkdir(parents=True, exist_ok=True)

    def executable(self) -> str:
        """The binary a run starts: ``binary`` if given, else the pinned CLI's."""
        return str(self.binary or self.cli.binary())

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The full environment a run gets: the agent's, plus ``env`` and ``extra``."""
        return self._environment({**self.env, **(extra or {})})

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        """The agent's environment for a run with ``home`` as HOME, plus ``extra``."""
        raise NotImplementedError

    def _result(self, argv: list[str], returncode: int, stdout: str, stderr: str, duration: float) -> RunT:
        """The agent's run result from what the process left."""
        raise NotImplementedError

    def _run(
        self,
        prompt: str,
        argv: list[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        check: bool = True,
    ) -> RunT:
        """Run ``argv`` (the turn that sends ``prompt``) in ``cwd`` and wait for it; ``env`` is
        added to this run alone, ``timeout`` replaces the runner's.

        ``check`` raises :class:`AssertionError` (with the CLI's output) unless it exited 0
        and its output reports no error (:attr:`AgentRun.is_error`). On timeout its whole
        process group is killed and :class:`AssertionError` raised.
        """
        returncode, stdout, stderr, duration = run_headless(
            argv,
            cwd=self.cwd,
            env=self.environment(env),
            timeout=self.timeout if timeout is None else timeout,
            what=f"{self.what} {prompt!r}",
        )
        run = self._result(argv, returncode, stdout, stderr, duration)
        if check and (run.returncode != 0 or run.is_error):
            raise AssertionError(run.describe())
        return run
