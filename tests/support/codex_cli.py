"""Install and drive the real Codex CLI headless against a loopback fake Responses API.

The CLI (npm package ``@openai/codex``, version :data:`CODEX_VERSION`) is installed once
into ``<agent cache>/codex`` (see :mod:`tests.support.npm_cli`). Only the install talks to
the network (the npm registry); a run talks to 127.0.0.1 only: the fake model is the only
provider, and the features that reach out on their own (plugin and app sync, update
checks, tool suggestions) are off in the throwaway ``$CODEX_HOME/config.toml`` (checked
with strace: the only connection a run makes is to the fake).

In a test::

    codex = require_codex()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1
    with FakeCodexServer() as server:
        runner = CodexRunner(server.base_url, home=tmp_path / "home", cwd=tmp_path / "project")
        runner.write_hooks(hook_settings({"Stop": command_line(sys.executable, script)}))
        first = runner.run("hello")
        second = runner.run("again", resume=True)
        assert first.session_id == second.session_id

A run is ``codex exec --skip-git-repo-check --dangerously-bypass-hook-trust PROMPT``
(``resume --last`` continues the latest session): Codex runs only trusted hooks, and a test
does not trust them for real (memevo never marks its own hooks trusted).

From the command line (``.ci/install-agent-clis`` runs ``install``)::

    python -m tests.support.codex_cli install [--force]   # prints the binary's path
    python -m tests.support.codex_cli path | version

Only the standard library is used (pytest is imported by :func:`require_codex` alone).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.npm_cli import (
    AgentRun,
    AgentRunner,
    NpmCli,
    agent_environment,
    command_line,
    dropping,
    hook_settings,
    inherited_environment,
    install_main,
    path_with_node,
    run_version,
    write_json,
)

__all__ = ["CODEX", "CodexRun", "CodexRunner", "codex_environment", "command_line", "hook_settings", "require_codex"]

CODEX_PACKAGE = "@openai/codex"
CODEX_VERSION = "0.169.1"
MODEL = "fake-model"
DUMMY_API_KEY = "sk-fake-codex-key-for-tests"
# Features that would reach the network on their own, off in every run's config.
OFFLINE_FEATURES = (
    "plugins",
    "remote_plugin",
    "apps",
    "in_app_updates",
    "tool_suggest",
    "skill_mcp_dependency_install",
)
_SESSION_LINE = re.compile(r"^session id: (\S+)$", re.MULTILINE)
# Inherited variables a run must not see: credentials and switches of the real CLI, proxies
# (the CLI must only reach the loopback fake), the user's memevo settings (pass ``MEMEVO_HOME``
# explicitly) and XDG directories.
_dropped = dropping(("OPENAI_", "CODEX_", "MEMEVO_", "XDG_", "RUST_"), {"AZURE_OPENAI_API_KEY"})


def _reports_version(binary: Path, version: str) -> bool:
    """``codex --version`` names ``version``, run with a throwaway HOME and CODEX_HOME."""
    with tempfile.TemporaryDirectory(prefix="codex-version-") as scratch:
        env = {**inherited_environment(_dropped), "HOME": scratch, "CODEX_HOME": scratch}
        env["PATH"] = path_with_node(env.get("PATH", os.defpath))
        done = run_version(binary, env)
    return done is not None and f"codex-cli {version}" in done.stdout


CODEX = NpmCli(
    name="codex",
    package=CODEX_PACKAGE,
    version=CODEX_VERSION,
    binary_path="node_modules/.bin/codex",
    version_check=_reports_version,
    title="Codex",
)


def require_codex() -> Path:
    """The pinned binary for tests: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
    return CODEX.require()


# -- running it ---------------------------------------------------------------------------------


def codex_environment(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a headless run with ``home`` as HOME and ``home/.codex`` as CODEX_HOME."""
    return agent_environment(
        home,
        _dropped,
        {
            "CODEX_HOME": str(home / ".codex"),
            "FAKE_CODEX_API_KEY": DUMMY_API_KEY,
            "NO_COLOR": "1",
        },
        extra,
    )


def config_toml(base_url: str, *, model: str = MODEL) -> str:
    """``config.toml`` for a run against the fake at ``base_url`` (``…/v1``), offline."""
    features = "".join(f"{name} = false\n" for name in OFFLINE_FEATURES)
    return (
        f'model = "{model}"\n'
        'model_provider = "fake"\n'
        "check_for_update_on_startup = false\n\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "{base_url}"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_CODEX_API_KEY"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n\n"
        "[analytics]\nenabled = false\n\n"
        f"[features]\n{features}"
    )


@dataclass(frozen=True)
class CodexRun(AgentRun):
    """One finished ``codex exec`` run (``check`` looks at its exit code alone)."""

    program = "codex"

    last_message: str | None  # the agent's final message (``--output-last-message``)

    @property
    def session_id(self) -> str | None:
        """The session (thread) the run belonged to, as ``codex exec`` prints it."""
        match = _SESSION_LINE.search(self.stderr)
        return match.group(1) if match else None


class CodexRunner(AgentRunner[CodexRun]):
    """Runs ``codex exec`` headless (see :class:`~tests.support.npm_cli.AgentRunner` for its
    arguments; a run may take 90 s by default).

    ``home`` is the throwaway HOME (``home/.codex`` is CODEX_HOME: config, hooks.json,
    sessions); ``env`` reaches the hooks too (Codex passes its environment on to them).
    """

    cli = CODEX
    what = "codex exec"
    default_timeout = 90.0

    def _prepare(self) -> None:
        self.codex_home.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(config_toml(self.base_url), encoding="utf-8")

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def config_path(self) -> Path:
        return self.codex_home / "config.toml"

    @property
    def hooks_path(self) -> Path:
        """``$CODEX_HOME/hooks.json``."""
        return self.codex_home / "hooks.json"

    @property
    def project_hooks_path(self) -> Path:
        """``<cwd>/.codex/hooks.json`` (Codex loads it only in a trusted project)."""
        return self.cwd / ".codex" / "hooks.json"

    def write_hooks(self, settings: Mapping[str, Any], *, project: bool = False) -> Path:
        """Write the user (or project) hooks file, replacing it."""
        return write_json(self.project_hooks_path if project else self.hooks_path, settings)

    def sessions(self) -> list[Path]:
        """The rollout files Codex wrote, oldest first."""
        return sorted(self.codex_home.glob("sessions/*/*/*/rollout-*.jsonl"), key=lambda p: p.stat().st_mtime)

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        return codex_environment(self.home, extra)

    def command(self, prompt: str, *, resume: bool = False, args: Sequence[str] = ()) -> list[str]:
        argv = [
            self.executable(),
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "--color",
            "never",
            *args,
        ]
        if resume:
            argv += ["resume", "--last"]
        return [*argv, prompt]

    def run(self, prompt: str, *, resume: bool = False, args: Sequence[str] = (), **kwargs: Any) -> CodexRun:
        """Run one headless turn and wait for it (``env``, ``timeout`` and ``check`` as in
        :meth:`~tests.support.npm_cli.AgentRunner._run`: ``check`` wants exit 0)."""
        last = Path(tempfile.mkstemp(prefix="codex-last-", suffix=".txt", dir=self.home)[1])
        try:
            argv = self.command(prompt, resume=resume, args=["--output-last-message", str(last), *args])
            return self._run(prompt, argv, **kwargs)
        finally:
            last.unlink(missing_ok=True)

    def _result(self, argv: list[str], returncode: int, stdout: str, stderr: str, duration: float) -> CodexRun:
        last = Path(argv[argv.index("--output-last-message") + 1])  # the file :meth:`run` made
        try:
            message = last.read_text(encoding="utf-8") if last.stat().st_size else None
        except OSError:
            message = None
        return CodexRun(argv, returncode, stdout, stderr, duration, message)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``install`` (default), ``path`` or ``version``."""
    return install_main(CODEX, "tests.support.codex_cli", argv)


if __name__ == "__main__":
    sys.exit(main())
