"""Install and drive the real Gemini CLI headless against a loopback fake Gemini API.

The CLI (npm package ``@google/gemini-cli``, version :data:`GEMINI_CLI_VERSION`) is
installed once into ``<agent cache>/gemini`` (see :mod:`tests.support.npm_cli`). Only the
install talks to the network (the npm registry); a run talks to 127.0.0.1 only.

In a test::

    gemini = require_gemini()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1
    with FakeGeminiServer() as server:
        runner = GeminiRunner(server.base_url, home=tmp_path / "home", cwd=tmp_path / "project")
        runner.write_user_settings(hook_settings({"AfterAgent": command_line(sys.executable, script)}))
        first = runner.run("hello")
        second = runner.run("again", resume=True)
        assert first.session_id == second.session_id

A run is ``gemini -p PROMPT --yolo --skip-trust -m gemini-2.5-flash -o json`` (``--resume
latest`` for the next turn of the latest session of that directory) with a throwaway HOME,
``GOOGLE_GEMINI_BASE_URL`` at the fake, a dummy ``GEMINI_API_KEY``, and telemetry,
auto-update and usage statistics off in ``~/.gemini/settings.json``
(:data:`BASE_SETTINGS`, merged into whatever settings a test writes).

From the command line (``.ci/install-agent-clis`` runs ``install``)::

    python -m tests.support.gemini_cli install [--force]   # prints the binary's path
    python -m tests.support.gemini_cli path | version

Only the standard library is used (pytest is imported by :func:`require_gemini` alone).
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import npm_cli
from tests.support.npm_cli import (
    AgentRunner,
    JsonOutputRun,
    NpmCli,
    agent_environment,
    command_line,
    dropping,
    install_main,
    json_objects,
    write_json,
)

__all__ = [
    "GEMINI",
    "GeminiRun",
    "GeminiRunner",
    "command_line",
    "gemini_binary",
    "gemini_environment",
    "hook_settings",
    "require_gemini",
    "with_base_settings",
]

GEMINI_CLI_PACKAGE = "@google/gemini-cli"
GEMINI_CLI_VERSION = "0.61.0"
MODEL = "gemini-2.5-flash"
DUMMY_API_KEY = "fake-gemini-key-for-tests"
# Switches that keep any run of the binary (the version check included) local and quiet.
QUIET_ENV = {"GEMINI_CLI_NO_RELAUNCH": "true", "GEMINI_TELEMETRY_ENABLED": "false", "NO_BROWSER": "true"}

GEMINI = NpmCli(
    name="gemini",
    package=GEMINI_CLI_PACKAGE,
    version=GEMINI_CLI_VERSION,
    binary_path="node_modules/.bin/gemini",
    env=QUIET_ENV,
    title="Gemini",
)

# What every run's ~/.gemini/settings.json holds (a test's own settings are merged over it).
BASE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
    # Session cleanup at start-up can delete a session's files (by their short id) mid-test.
    "general": {
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
        "sessionRetention": {"enabled": False},
    },
    "hooksConfig": {"enabled": True},
}

# Inherited variables a run must not see: the real CLI's credentials and switches, Google
# credentials, proxies (the CLI must only reach the loopback fake), the user's memevo settings
# (pass ``MEMEVO_HOME`` explicitly) and XDG directories.
_dropped = dropping(("GEMINI_", "GOOGLE_", "CLOUDSDK_", "MEMEVO_", "XDG_"), {"DEBUG_MODE"})


def require_gemini() -> Path:
    """The pinned CLI's binary for a test: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
    return GEMINI.require()


def gemini_binary() -> Path:
    """The pinned CLI's binary, installing it first if needed (raises :class:`AgentCliUnavailable`)."""
    return GEMINI.binary()


def gemini_environment(base_url: str, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a headless run against the fake at ``base_url`` with ``home`` as HOME."""
    return agent_environment(
        home,
        _dropped,
        {
            "TMPDIR": str(home / ".tmp"),  # error reports otherwise land in /tmp
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_API_KEY": DUMMY_API_KEY,
            **QUIET_ENV,
        },
        extra,
    )


def hook_settings(
    hooks: Mapping[str, str | Sequence[str]], *, matcher: str = "", timeout_ms: int | None = 30_000
) -> dict[str, Any]:
    """Settings JSON running command hooks (timeouts in milliseconds, as Gemini counts them)."""
    return npm_cli.hook_settings(hooks, matcher=matcher, timeout=timeout_ms)


def with_base_settings(settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """:data:`BASE_SETTINGS` with ``settings`` merged over it (objects merged key by key)."""
    merged = copy.deepcopy(BASE_SETTINGS)
    _merge(merged, settings or {})
    return merged


def _merge(into: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


@dataclass(frozen=True)
class GeminiRun(JsonOutputRun):
    """One finished ``gemini -p`` run; ``output`` is the parsed ``-o json`` result."""

    program = "gemini"

    @property
    def response(self) -> str:
        """The model's final text (``""`` if none)."""
        return self.text("response")


class GeminiRunner(AgentRunner[GeminiRun]):
    """Runs ``gemini -p PROMPT --yolo --skip-trust -m gemini-2.5-flash -o json`` (see
    :class:`~tests.support.npm_cli.AgentRunner` for its arguments).

    ``home`` is the throwaway HOME (user settings in ``home/.gemini/settings.json``, chats
    under ``home/.gemini/tmp``). The user settings always hold :data:`BASE_SETTINGS`:
    :meth:`ensure_base_settings` merges them into whatever is there.
    """

    cli = GEMINI
    what = "gemini -p"

    @property
    def user_settings_path(self) -> Path:
        return self.home / ".gemini" / "settings.json"

    @property
    def project_settings_path(self) -> Path:
        return self.cwd / ".gemini" / "settings.json"

    def read_user_settings(self) -> dict[str, Any]:
        try:
            data = json.loads(self.user_settings_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return data if isinstance(data, dict) else {}

    def write_user_settings(self, settings: Mapping[str, Any]) -> Path:
        """Replace the user settings with :data:`BASE_SETTINGS` plus ``settings``."""
        return write_json(self.user_settings_path, with_base_settings(settings), end="\n")

    def write_project_settings(self, settings: Mapping[str, Any]) -> Path:
        return write_json(self.project_settings_path, settings, end="\n")

    def ensure_base_settings(self) -> Path:
        """Merge :data:`BASE_SETTINGS` under the user settings as they are (hooks kept)."""
        current = self.read_user_settings()
        merged = with_base_settings(current)
        if merged == current:
            return self.user_settings_path
        return write_json(self.user_settings_path, merged, end="\n")

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        return gemini_environment(self.base_url, self.home, extra)

    def command(self, prompt: str, *, resume: bool = False, args: Sequence[str] = ()) -> list[str]:
        argv = [self.executable(), "-p", prompt, "--yolo", "--skip-trust", "-m", MODEL, "-o", "json"]
        if resume:
            argv += ["--resume", "latest"]
        return [*argv, *args]

    def run(self, prompt: str, *, resume: bool = False, args: Sequence[str] = (), **kwargs: Any) -> GeminiRun:
        """Run one headless turn and wait for it, :data:`BASE_SETTINGS` ensured first (``env``,
        ``timeout`` and ``check`` as in :meth:`~tests.support.npm_cli.AgentRunner._run`:
        ``check`` wants exit 0 and a JSON result with no error)."""
        self.ensure_base_settings()
        return self._run(prompt, self.command(prompt, resume=resume, args=args), **kwargs)

    def _result(self, argv: list[str], returncode: int, stdout: str, stderr: str, duration: float) -> GeminiRun:
        start = stdout.find("{")  # the JSON result, after anything the CLI printed first
        texts = ([stdout[start:]] if start >= 0 else []) + list(reversed(stdout.splitlines()))
        return GeminiRun(argv, returncode, stdout, stderr, duration, next(json_objects(texts), None))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``install`` (default), ``path`` or ``version``."""
    return install_main(GEMINI, "tests.support.gemini_cli", argv)


if __name__ == "__main__":
    sys.exit(main())
