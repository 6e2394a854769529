"""Install a pinned agent CLI from the npm registry into the agent cache, for any agent.

The generic part of :mod:`tests.support.agent_clis` (which installs Claude Code): one
:class:`NpmCli` names a package, its pinned version and the binary it ships; ``install()``
puts it into ``<cache>/<name>`` (the cache is :func:`tests.support.agent_clis.cache_dir`:
``$MEMEVO_AGENT_CACHE`` or ``~/.cache/memevo-agent-clis``) once, under a file lock so
concurrent test processes install it only once, through a staging prefix moved into place
only after the binary runs, so an interrupted install never leaves a broken cache.

In a test::

    GEMINI = NpmCli(name="gemini", package="@google/gemini-cli", version="0.61.0",
                    binary_path="node_modules/.bin/gemini")
    binary = GEMINI.require()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1

Only the registry is contacted, by ``npm install``; running the CLI is up to the caller.
Only the standard library is used (pytest is imported by :meth:`NpmCli.require` alone).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.agent_clis import (
    INSTALL_TIMEOUT,
    REQUIRE_ENV,
    AgentCliUnavailable,
    agent_clis_required,
    cache_dir,
)

_STACK_LINE = re.compile(r"^(npm (error|ERR!))?\s+at ")


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
    command = [npm, "install", "--prefix", str(prefix), spec, "--no-audit", "--no-fund", "--no-update-notifier",
               "--loglevel=error", "--fetch-retries=1", "--fetch-retry-mintimeout=2000",
               "--fetch-retry-maxtimeout=10000"]
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

    ``binary_path`` is the binary relative to the install prefix; ``version_check`` runs it
    and says whether it works (default: ``BINARY --version`` prints the version), with
    ``env`` added to that run (switches that keep it offline).
    """

    name: str  # the cache subdirectory: "gemini"
    package: str  # "@google/gemini-cli"
    version: str  # "0.61.0"
    binary_path: str  # "node_modules/.bin/gemini"
    env: Mapping[str, str] = field(default_factory=dict)
    version_check: Callable[[Path, str], bool] | None = None
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
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMEVO_")}
        try:
            done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                                  env={**env, **self.env}, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0 and self.version in done.stdout

    def installed_binary(self, prefix: Path | None = None) -> Path | None:
        """The pinned CLI's binary if it is installed and runs, else ``None``."""
        prefix = prefix or self.prefix()
        if self.installed_version(prefix) != self.version:
            return None
        binary = prefix / self.binary_path
        return binary if self._runs(binary) else None

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
            message = f"{self.package} CLI unavailable: {exc}"
            if agent_clis_required():
                pytest.fail(f"{message} ({REQUIRE_ENV}=1 makes this an error)", pytrace=False)
            pytest.skip(message)
