"""Install and drive the real Claude Code CLI headless against a loopback fake model.

The CLI (npm package ``@anthropic-ai/claude-code``, version :data:`CLAUDE_CODE_VERSION`)
is installed once into a cache outside the repository: ``$MEMEVO_AGENT_CACHE`` if set,
else ``~/.cache/memevo-agent-clis``; the package lives in ``<cache>/claude-code``.
Only this install talks to the network (the npm registry); a run talks to 127.0.0.1 only.

In a test::

    claude = require_claude()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1
    with FakeAnthropicServer() as server:
        runner = ClaudeRunner.for_test(server.base_url, tmp_path, env={"MEMEVO_HOME": str(home)})
        runner.write_user_settings(hook_settings({"Stop": command_line(sys.executable, script)}))
        first = runner.run("hello")
        second = runner.run("again", continue_session=True)
        assert first.session_id == second.session_id

From the command line (CI runs ``.ci/install-agent-clis``)::

    python -m tests.support.agent_clis install [--force]   # prints the binary's path
    python -m tests.support.agent_clis path | version

Only the standard library is used (pytest is imported by :func:`require_claude` alone).
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.332"
CACHE_ENV = "MEMEVO_AGENT_CACHE"
REQUIRE_ENV = "MEMEVO_REQUIRE_AGENT_CLIS"
INSTALL_TIMEOUT = 900.0
DUMMY_API_KEY = "sk-ant-fake-key-for-tests"

# The test suite's autouse fixture removes MEMEVO_* variables before each test; these
# settings are read when this module is imported (at collection) so they still count.
_STARTUP_ENV = {name: os.environ[name] for name in (CACHE_ENV, REQUIRE_ENV) if name in os.environ}
_PROXY_VARS = {
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "ftp_proxy",
    "no_proxy",
    "npm_config_proxy",
    "npm_config_https_proxy",
}
_STACK_LINE = re.compile(r"^(npm (error|ERR!))?\s+at ")
_failure: str | None = None  # why the CLI is unavailable, remembered for the rest of the process
_verified: Path | None = None


class AgentCliUnavailable(RuntimeError):
    """The pinned CLI is not installed and could not be installed."""


def _setting(name: str) -> str | None:
    return os.environ.get(name) or _STARTUP_ENV.get(name) or None


def cache_dir() -> Path:
    """Where agent CLIs are installed: ``$MEMEVO_AGENT_CACHE`` or ``~/.cache/memevo-agent-clis``."""
    configured = _setting(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memevo-agent-clis"


def claude_code_prefix() -> Path:
    """The npm prefix holding the pinned Claude Code package."""
    return cache_dir() / "claude-code"


def agent_clis_required() -> bool:
    """Whether a missing CLI must fail the tests (``MEMEVO_REQUIRE_AGENT_CLIS=1``, set by CI)."""
    return (_setting(REQUIRE_ENV) or "").strip().lower() in {"1", "true", "yes"}


def _candidates(prefix: Path) -> list[Path]:
    """Binaries to try: the package's own (the native binary once its postinstall ran),
    then the platform package's native binary (used when install scripts were skipped)."""
    scope = prefix / "node_modules" / "@anthropic-ai"
    found = [scope / "claude-code" / "bin" / "claude.exe"]
    found += sorted(p / "claude" for p in scope.glob("claude-code-*") if (p / "claude").is_file())
    return found


def _installed_version(prefix: Path) -> str | None:
    manifest = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def _reports_version(binary: Path) -> bool:
    """Whether ``binary --version`` runs and names the pinned version."""
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        return False
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**_clean_base_env(), "DISABLE_AUTOUPDATER": "1"},
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip().startswith(CLAUDE_CODE_VERSION)


def installed_claude_binary(prefix: Path | None = None) -> Path | None:
    """The pinned CLI's binary if it is installed and runs, else ``None``."""
    prefix = prefix or claude_code_prefix()
    if _installed_version(prefix) != CLAUDE_CODE_VERSION:
        return None
    return next((b for b in _candidates(prefix) if _reports_version(b)), None)


@contextlib.contextmanager
def _install_lock(directory: Path) -> Iterator[None]:
    """An exclusive lock so concurrent test processes install only once."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "claude-code.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install_claude_code(*, force: bool = False, timeout: float = INSTALL_TIMEOUT) -> Path:
    """Install the pinned CLI into the cache unless it is there already; return its binary.

    Installs into a temporary prefix and moves it into place only once the binary runs,
    so an interrupted install never leaves a broken cache. Raises :class:`AgentCliUnavailable`.
    """
    prefix = claude_code_prefix()
    if not force and (binary := installed_claude_binary(prefix)):
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise AgentCliUnavailable("npm is not on PATH; Node.js and npm are needed to install Claude Code")
    with _install_lock(prefix.parent):
        if not force and (binary := installed_claude_binary(prefix)):
            return binary  # another process installed it while we waited
        staging = prefix.with_name(f"{prefix.name}.installing-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        command = [
            npm,
            "install",
            "--prefix",
            str(staging),
            f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION}",
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
            shutil.rmtree(staging, ignore_errors=True)
            raise AgentCliUnavailable(f"`npm install {CLAUDE_CODE_PACKAGE}` took over {timeout:.0f} s") from None
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            # Keep npm's message, drop its stack trace.
            lines = [ln for ln in (done.stderr or done.stdout).splitlines() if not _STACK_LINE.match(ln)]
            tail = "\n".join(line for line in lines[:8] if line.strip())[:1500]
            raise AgentCliUnavailable(
                f"`npm install {CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION}` failed (exit {done.returncode}): {tail}"
            )
        if installed_claude_binary(staging) is None:
            shutil.rmtree(staging, ignore_errors=True)
            raise AgentCliUnavailable(
                f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION} installed but no binary of it runs on this platform"
            )
        shutil.rmtree(prefix, ignore_errors=True)
        os.replace(staging, prefix)
    binary = installed_claude_binary(prefix)
    if binary is None:
        raise AgentCliUnavailable(f"{CLAUDE_CODE_PACKAGE} vanished from {prefix} after installing")
    return binary


def claude_binary() -> Path:
    """The pinned CLI's binary, installing it first if needed (raises :class:`AgentCliUnavailable`).

    A failure is remembered for the rest of the process so later tests do not retry it.
    """
    global _failure, _verified
    if _verified is not None and _verified.exists():
        return _verified
    if _failure is not None:
        raise AgentCliUnavailable(_failure)
    try:
        _verified = install_claude_code()
    except AgentCliUnavailable as exc:
        _failure = str(exc)
        raise
    return _verified


def require_claude() -> Path:
    """:func:`claude_binary` for tests: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
    import pytest

    try:
        return claude_binary()
    except AgentCliUnavailable as exc:
        message = f"Claude Code CLI unavailable: {exc}"
        if agent_clis_required():
            pytest.fail(f"{message} ({REQUIRE_ENV}=1 makes this an error)", pytrace=False)
        pytest.skip(message)


# -- running it ---------------------------------------------------------------------------------


def _dropped(name: str) -> bool:
    """Inherited variables a run must not see: credentials and switches of the real CLI,
    proxies (the CLI must only reach the loopback fake), the user's memevo settings (pass
    ``MEMEVO_HOME`` explicitly; without it memevo's default lies under the throwaway HOME)
    and XDG directories (moved under the throwaway HOME)."""
    upper = name.upper()
    return (
        upper.startswith(("ANTHROPIC_", "CLAUDE", "MEMEVO_", "XDG_"))
        or name.lower() in _PROXY_VARS
        or upper in {"NODE_OPTIONS", "DEBUG"}
    )


def _clean_base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not _dropped(k)}


def claude_environment(base_url: str, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a headless run against the fake at ``base_url`` with ``home`` as HOME."""
    env = _clean_base_env()
    path_parts = [str(Path(sys.executable).parent)]
    node = shutil.which("node")
    if node:
        path_parts.insert(0, str(Path(node).resolve().parent))
    env["PATH"] = os.pathsep.join([*path_parts, env.get("PATH", os.defpath)])
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "CLAUDE_CODE_TMPDIR": str(home / ".tmp"),  # task outputs, otherwise under /tmp/claude-<uid>
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": DUMMY_API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
            "DISABLE_COST_WARNINGS": "1",
            "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
            "IS_SANDBOX": "1",  # as root, bypassPermissions is refused without it
        }
    )
    env.update(extra or {})
    return env


def command_line(*argv: str | os.PathLike[str]) -> str:
    """A shell-quoted hook ``command`` from an argument list."""
    return shlex.join(str(a) for a in argv)


def hook_settings(
    hooks: Mapping[str, str | Sequence[str]], *, matcher: str = "", timeout: float | None = 30
) -> dict[str, Any]:
    """Settings JSON running command hooks: ``{"Stop": "cmd", "UserPromptSubmit": ["a", "b"]}``."""
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


@dataclass(frozen=True)
class ClaudeRun:
    """One finished ``claude -p`` run; ``output`` is the parsed ``--output-format json`` result."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    output: dict[str, Any] | None
    duration: float

    @property
    def result(self) -> str:
        """The final assistant text (``""`` if none)."""
        return str((self.output or {}).get("result") or "")

    @property
    def session_id(self) -> str | None:
        """The session the run belonged to."""
        value = (self.output or {}).get("session_id")
        return str(value) if value else None

    @property
    def is_error(self) -> bool:
        """Whether the CLI reported an error (or printed no result)."""
        return self.output is None or bool(self.output.get("is_error"))

    def describe(self) -> str:
        """Exit code, stdout and stderr, for assertion messages."""
        return (
            f"claude exited {self.returncode} after {self.duration:.1f}s\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def _parse_output(stdout: str) -> dict[str, Any] | None:
    for text in [stdout, *reversed(stdout.splitlines())]:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


class ClaudeRunner:
    """Runs ``claude -p PROMPT --output-format json --permission-mode bypassPermissions``.

    ``home`` is the throwaway HOME (user settings in ``home/.claude/settings.json``,
    sessions under ``home/.claude/projects``); ``cwd`` the project directory; ``env`` is
    added to every run (e.g. ``MEMEVO_HOME`` for the hooks).
    """

    def __init__(
        self,
        base_url: str,
        *,
        home: Path,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        binary: Path | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.base_url = base_url
        self.home = Path(home)
        self.cwd = Path(cwd)
        self.env = dict(env or {})
        self.binary = Path(binary) if binary is not None else None
        self.timeout = timeout
        (self.home / ".tmp").mkdir(parents=True, exist_ok=True)
        self.cwd.mkdir(parents=True, exist_ok=True)

    @classmethod
    def for_test(cls, base_url: str, tmp_path: Path, **kwargs: Any) -> ClaudeRunner:
        """A runner with HOME ``tmp_path/home`` and project ``tmp_path/project``."""
        return cls(base_url, home=tmp_path / "home", cwd=tmp_path / "project", **kwargs)

    @property
    def user_settings_path(self) -> Path:
        """``$HOME/.claude/settings.json``."""
        return self.home / ".claude" / "settings.json"

    @property
    def project_settings_path(self) -> Path:
        """``<cwd>/.claude/settings.json``."""
        return self.cwd / ".claude" / "settings.json"

    def write_user_settings(self, settings: Mapping[str, Any]) -> Path:
        """Write the user-level settings file (replacing it)."""
        return self._write_json(self.user_settings_path, settings)

    def write_project_settings(self, settings: Mapping[str, Any]) -> Path:
        """Write the project-level settings file (replacing it)."""
        return self._write_json(self.project_settings_path, settings)

    @staticmethod
    def _write_json(path: Path, data: Mapping[str, Any]) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        return path

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The full environment a run gets."""
        return claude_environment(self.base_url, self.home, {**self.env, **(extra or {})})

    def command(
        self, prompt: str, *, continue_session: bool = False, resume: str | None = None, args: Sequence[str] = ()
    ) -> list[str]:
        """The argument list of a run."""
        binary = self.binary or claude_binary()
        argv = [str(binary), "-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"]
        if continue_session:
            argv.append("--continue")
        if resume:
            argv += ["--resume", resume]
        return [*argv, *args]

    def run(
        self,
        prompt: str,
        *,
        continue_session: bool = False,
        resume: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        check: bool = True,
    ) -> ClaudeRun:
        """Run one headless turn and wait for it.

        ``check`` raises :class:`AssertionError` (with the CLI's output) unless it exited 0
        with a non-error JSON result. On timeout its whole process group is killed and
        :class:`AssertionError` raised.
        """
        argv = self.command(prompt, continue_session=continue_session, resume=resume, args=args)
        limit = self.timeout if timeout is None else timeout
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            cwd=str(self.cwd),
            env=self.environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise AssertionError(
                f"claude -p {prompt!r} took over {limit:.0f}s\n"
                f"--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"
            ) from None
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        run = ClaudeRun(
            args=argv,
            returncode=process.returncode,
            stdout=stdout,
            stderr=stderr,
            output=_parse_output(stdout),
            duration=time.monotonic() - started,
        )
        if check and (run.returncode != 0 or run.is_error):
            raise AssertionError(run.describe())
        return run


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``install`` (default), ``path`` or ``version``."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.agent_clis",
        description="Install the pinned agent CLIs used by the end-to-end tests.",
    )
    parser.add_argument("action", nargs="?", choices=["install", "path", "version"], default="install")
    parser.add_argument("--force", action="store_true", help="reinstall even if the pinned version is present")
    args = parser.parse_args(argv)
    if args.action == "version":
        print(f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION}")
        return 0
    if args.action == "path":
        binary = installed_claude_binary()
        if binary is None:
            print(
                f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION} is not installed in {claude_code_prefix()}",
                file=sys.stderr,
            )
            return 1
        print(binary)
        return 0
    try:
        binary = install_claude_code(force=args.force)
    except AgentCliUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
