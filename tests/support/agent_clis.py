"""Install and drive the real Claude Code CLI headless against a loopback fake model.

The CLI (npm package ``@anthropic-ai/claude-code``, version :data:`CLAUDE_CODE_VERSION`)
is installed once into a cache outside the repository: ``$MEMEVO_AGENT_CACHE`` if set,
else ``~/.cache/memevo-agent-clis``; the package lives in ``<cache>/claude-code`` (see
:mod:`tests.support.npm_cli`, which holds the install and run machinery every agent shares).
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

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.npm_cli import (
    AgentRunner,
    JsonOutputRun,
    NpmCli,
    agent_environment,
    command_line,
    dropping,
    hook_settings,
    inherited_environment,
    install_main,
    json_objects,
    run_version,
    write_json,
)

__all__ = [
    "CLAUDE_CODE",
    "ClaudeRun",
    "ClaudeRunner",
    "claude_binary",
    "claude_environment",
    "command_line",
    "hook_settings",
    "require_claude",
]

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.332"
DUMMY_API_KEY = "sk-ant-fake-key-for-tests"

# Inherited variables a run must not see: credentials and switches of the real CLI, proxies
# (the CLI must only reach the loopback fake), the user's memevo settings (pass ``MEMEVO_HOME``
# explicitly; without it memevo's default lies under the throwaway HOME) and XDG directories
# (moved under the throwaway HOME).
_dropped = dropping(("ANTHROPIC_", "CLAUDE", "MEMEVO_", "XDG_"))


def _candidates(prefix: Path) -> list[Path]:
    """Binaries to try: the package's own (the native binary once its postinstall ran),
    then the platform package's native binary (used when install scripts were skipped)."""
    scope = prefix / "node_modules" / "@anthropic-ai"
    found = [scope / "claude-code" / "bin" / "claude.exe"]
    found += sorted(p / "claude" for p in scope.glob("claude-code-*") if (p / "claude").is_file())
    return found


def _reports_version(binary: Path, version: str) -> bool:
    """Whether ``binary --version`` runs and names the pinned version."""
    done = run_version(binary, {**inherited_environment(_dropped), "DISABLE_AUTOUPDATER": "1"})
    return done is not None and done.stdout.strip().startswith(version)


CLAUDE_CODE = NpmCli(
    name="claude-code",
    package=CLAUDE_CODE_PACKAGE,
    version=CLAUDE_CODE_VERSION,
    binary_path="node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    binaries=_candidates,
    version_check=_reports_version,
    title="Claude Code",
)


def claude_binary() -> Path:
    """The pinned CLI's binary, installing it first if needed (raises
    :class:`~tests.support.npm_cli.AgentCliUnavailable`); a failure is remembered for the process."""
    return CLAUDE_CODE.binary()


def require_claude() -> Path:
    """:func:`claude_binary` for tests: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
    return CLAUDE_CODE.require()


# -- running it ---------------------------------------------------------------------------------


def claude_environment(base_url: str, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a headless run against the fake at ``base_url`` with ``home`` as HOME."""
    return agent_environment(
        home,
        _dropped,
        {
            "CLAUDE_CODE_TMPDIR": str(home / ".tmp"),  # task outputs, otherwise under /tmp/claude-<uid>
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
        },
        extra,
    )


@dataclass(frozen=True)
class ClaudeRun(JsonOutputRun):
    """One finished ``claude -p`` run; ``output`` is the parsed ``--output-format json`` result."""

    program = "claude"
    error_key = "is_error"

    @property
    def result(self) -> str:
        """The final assistant text (``""`` if none)."""
        return self.text("result")


class ClaudeRunner(AgentRunner[ClaudeRun]):
    """Runs ``claude -p PROMPT --output-format json --permission-mode bypassPermissions``
    (see :class:`~tests.support.npm_cli.AgentRunner` for its arguments).

    ``home`` is the throwaway HOME (user settings in ``home/.claude/settings.json``,
    sessions under ``home/.claude/projects``).
    """

    cli = CLAUDE_CODE
    what = "claude -p"

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
        return write_json(self.user_settings_path, settings)

    def write_project_settings(self, settings: Mapping[str, Any]) -> Path:
        """Write the project-level settings file (replacing it)."""
        return write_json(self.project_settings_path, settings)

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        return claude_environment(self.base_url, self.home, extra)

    def command(
        self, prompt: str, *, continue_session: bool = False, resume: str | None = None, args: Sequence[str] = ()
    ) -> list[str]:
        """The argument list of a run."""
        argv = [self.executable(), "-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"]
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
        **kwargs: Any,
    ) -> ClaudeRun:
        """Run one headless turn and wait for it (``env``, ``timeout`` and ``check`` as in
        :meth:`~tests.support.npm_cli.AgentRunner._run`: ``check`` wants exit 0 and a
        non-error JSON result)."""
        argv = self.command(prompt, continue_session=continue_session, resume=resume, args=args)
        return self._run(prompt, argv, **kwargs)

    def _result(self, argv: list[str], returncode: int, stdout: str, stderr: str, duration: float) -> ClaudeRun:
        output = next(json_objects([stdout, *reversed(stdout.splitlines())]), None)
        return ClaudeRun(argv, returncode, stdout, stderr, duration, output)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``install`` (default), ``path`` or ``version``."""
    return install_main(CLAUDE_CODE, "tests.support.agent_clis", argv)


if __name__ == "__main__":
    sys.exit(main())
