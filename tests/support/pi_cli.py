"""Install and drive the real Pi coding agent headless against a loopback fake chat model.

The CLI (npm package ``@mariozechner/pi-coding-agent``, version :data:`PI_VERSION`; it
needs Node >= 20.6) is installed once into ``<agent cache>/pi`` (see
:mod:`tests.support.npm_cli`). Only the install talks to the network (the npm registry); a
run talks to 127.0.0.1 only: ``PI_OFFLINE=1`` and ``--offline`` turn off Pi's update
checks, package checks and telemetry, and the only model provider is the fake.

In a test::

    pi = require_pi()  # skips, or fails when MEMEVO_REQUIRE_AGENT_CLIS=1
    with FakeOpenAIChatServer() as server:
        runner = PiRunner(server.base_url, home=tmp_path / "home", cwd=tmp_path / "project", binary=pi)
        first = runner.run("hello")
        second = runner.run("again", continue_session=True)
        assert first.session_id == second.session_id

A run is ``pi --mode json -p --offline --provider fake --model fake-model PROMPT`` (``-c``
continues the latest session of that directory) with a throwaway HOME whose
``~/.pi/agent`` (``PI_CODING_AGENT_DIR``) holds ``models.json`` naming the fake as provider
``fake`` (``api: openai-completions``). JSON mode prints the session header and every event,
so a run knows its session id and final answer; it is print mode like ``-p`` text output.

From the command line (``.ci/install-agent-clis`` runs ``install``)::

    python -m tests.support.pi_cli install [--force]   # prints the binary's path
    python -m tests.support.pi_cli path | version

Only the standard library is used (pytest is imported by :func:`require_pi` alone).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.npm_cli import (
    AgentRun,
    AgentRunner,
    NpmCli,
    agent_environment,
    dropping,
    inherited_environment,
    install_main,
    json_objects,
    kill_group,
    run_version,
)

PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
PROVIDER = "fake"
MODEL = "fake-model"
DUMMY_API_KEY = "fake-pi-key-for-tests"
# Switches that keep any run of the binary (the version check included) off the network.
QUIET_ENV = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
# Inherited variables a run must not see: Pi's own settings, provider credentials Pi would pick
# up from the environment, proxies (the CLI must only reach the loopback fake), the user's memevo
# settings (pass ``MEMEVO_HOME`` explicitly) and XDG directories.
_dropped = dropping(
    (
        "PI_",
        "MEMEVO_",
        "XDG_",
        "OPENAI_",
        "ANTHROPIC_",
        "GEMINI_",
        "GOOGLE_",
        "AZURE_",
        "MISTRAL_",
        "GROQ_",
        "XAI_",
        "OPENROUTER_",
        "DEEPSEEK_",
        "CEREBRAS_",
        "AWS_",
        "COPILOT_",
    )
)


def _version_check(binary: Path, version: str) -> bool:
    """``pi --version`` prints the version on stderr."""
    done = run_version(binary, {**inherited_environment(_dropped), **QUIET_ENV})
    return done is not None and version in (done.stdout + done.stderr)


PI = NpmCli(
    name="pi",
    package=PI_PACKAGE,
    version=PI_VERSION,
    binary_path="node_modules/.bin/pi",
    env=QUIET_ENV,
    version_check=_version_check,
    title="Pi",
)


def require_pi() -> Path:
    """The pinned CLI's binary for a test: skip without it, or fail when ``MEMEVO_REQUIRE_AGENT_CLIS=1``."""
    return PI.require()


def pi_binary() -> Path:
    """The pinned CLI's binary, installing it first if needed (raises :class:`AgentCliUnavailable`)."""
    return PI.binary()


def pi_environment(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a headless run with ``home`` as HOME (and ``home/.pi/agent`` as Pi's dir)."""
    return agent_environment(
        home,
        _dropped,
        {
            "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
            "TMPDIR": str(home / ".tmp"),
            **QUIET_ENV,
        },
        extra,
    )


def models_json(base_url: str) -> dict[str, Any]:
    """``models.json`` declaring the fake at ``base_url`` as provider ``fake`` with ``fake-model``."""
    return {
        "providers": {
            PROVIDER: {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": DUMMY_API_KEY,
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [
                    {
                        "id": MODEL,
                        "name": "Fake model",
                        "reasoning": False,
                        "input": ["text"],
                        "contextWindow": 128000,
                        "maxTokens": 4096,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    }
                ],
            }
        }
    }


@dataclass(frozen=True)
class PiRun(AgentRun):
    """One finished ``pi --mode json -p`` run: its JSON lines parsed into ``events``."""

    program = "pi"

    events: list[dict[str, Any]]

    @property
    def session_id(self) -> str | None:
        """The id in the session header (the first line)."""
        header = next((e for e in self.events if e.get("type") == "session"), None)
        return str(header["id"]) if header and header.get("id") else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages of the run's last ``agent_end`` (what the prompt added)."""
        ends = [e for e in self.events if e.get("type") == "agent_end"]
        messages = ends[-1].get("messages") if ends else None
        return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []

    @property
    def result(self) -> str:
        """The text of the last assistant message (``""`` if none)."""
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                content = message.get("content")
                parts = content if isinstance(content, list) else []
                return "".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text")
        return ""

    @property
    def is_error(self) -> bool:
        assistants = [m for m in self.messages if m.get("role") == "assistant"]
        return not assistants or assistants[-1].get("stopReason") in ("error", "aborted")


class PiRunner(AgentRunner[PiRun]):
    """Runs ``pi`` headless in ``cwd`` with ``home`` as HOME against the fake at ``base_url``
    (see :class:`~tests.support.npm_cli.AgentRunner` for its arguments; ``env`` reaches the
    extension's hooks).
    """

    cli = PI
    what = "pi -p"

    def _prepare(self) -> None:
        super()._prepare()
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        (self.agent_dir / "models.json").write_text(json.dumps(models_json(self.base_url), indent=2), encoding="utf-8")

    @property
    def agent_dir(self) -> Path:
        """``PI_CODING_AGENT_DIR``: ``home/.pi/agent``."""
        return self.home / ".pi" / "agent"

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        return pi_environment(self.home, extra)

    def command(self, prompt: str, *, continue_session: bool = False, args: Sequence[str] = ()) -> list[str]:
        argv = [self.executable(), "--mode", "json", "-p", "--offline", "--provider", PROVIDER, "--model", MODEL]
        if continue_session:
            argv.append("-c")
        return [*argv, *args, prompt]

    def run(self, prompt: str, *, continue_session: bool = False, args: Sequence[str] = (), **kwargs: Any) -> PiRun:
        """Run one headless prompt and wait for the process to exit, its extensions' work
        included (``env``, ``timeout`` and ``check`` as in
        :meth:`~tests.support.npm_cli.AgentRunner._run`: ``check`` wants exit 0 and a
        non-error answer)."""
        return self._run(prompt, self.command(prompt, continue_session=continue_session, args=args), **kwargs)

    def _result(self, argv: list[str], returncode: int, stdout: str, stderr: str, duration: float) -> PiRun:
        return PiRun(argv, returncode, stdout, stderr, duration, list(json_objects(stdout.splitlines())))

    def compact(self, *, env: Mapping[str, str] | None = None, timeout: float | None = None) -> dict[str, Any]:
        """Compact the latest session of ``cwd`` for real: ``pi --mode rpc -c`` gets
        ``{"type": "compact"}`` (print mode has no ``/compact``); returns RPC's response and
        waits for the process to exit once its stdin is closed."""
        argv = [self.executable(), "--mode", "rpc", "--offline", "--provider", PROVIDER, "--model", MODEL, "-c"]
        limit = self.timeout if timeout is None else timeout
        process = subprocess.Popen(
            argv,
            cwd=str(self.cwd),
            env=self.environment(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        timer = threading.Timer(limit, lambda: kill_group(process))
        timer.start()
        try:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps({"id": "memevo-compact", "type": "compact"}) + "\n")
            process.stdin.flush()
            response: dict[str, Any] | None = None
            for line in process.stdout:
                event = next(json_objects([line]), None)
                if event and event.get("type") == "response" and event.get("id") == "memevo-compact":
                    response = event
                    break
            process.stdin.close()
            process.wait(timeout=limit)
        finally:
            timer.cancel()
            if process.poll() is None:
                kill_group(process)
                process.wait()
        if response is None:
            raise AssertionError(f"pi --mode rpc gave no compact response (exit {process.returncode})")
        return response


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``install`` (default), ``path`` or ``version``."""
    return install_main(PI, "tests.support.pi_cli", argv)


if __name__ == "__main__":
    sys.exit(main())
