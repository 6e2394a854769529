"""Learning through the agent's own CLI, with the real pinned CLIs and the real worker.

For each of Claude Code, Codex, Gemini CLI and Pi: memevo's hooks are installed into a
throwaway HOME (``memevo install``), a statement is captured, and ``memevo worker`` (its own
process, ``MEMEVO_MODEL_PROVIDER`` set, no model URL) consolidates it by running the CLI
headless against the loopback fake of that CLI's model API. Checked: the claim is learned
with the model the CLI reported; the consolidation request offers no tool; no memevo hook
fired for it (one source, no new hook-log line); no session file is left in HOME; the
agent's settings files are byte-identical. A CLI whose model never answers is killed at
the deadline with its whole process group, and the source is a recorded timeout. A CLI
that is not installed is doctor's error, naming it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import hook_log, memevo_as_user
from tests.support.agent_clis import claude_environment
from tests.support.codex_cli import codex_environment, config_toml
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_anthropic import Reply as ClaudeReply
from tests.support.fake_codex import FakeCodexServer
from tests.support.fake_codex import Reply as CodexReply
from tests.support.fake_gemini import FakeGeminiServer
from tests.support.fake_gemini import Reply as GeminiReply
from tests.support.fake_openai_chat import ChatReply, FakeOpenAIChatServer
from tests.support.gemini_cli import gemini_environment, with_base_settings
from tests.support.memevo_worker import MemevoWorker, claims, memevo_env, query, run_memevo, sources, wait_until
from tests.support.npm_cli import write_json
from tests.support.pi_cli import models_json, pi_environment

pytestmark = pytest.mark.slow

CLAIM = "The zebra-queue service listens on port 5433."
ANSWER = {"claims": [{"kind": "fact", "content": CLAIM, "replaces": None, "searchTerms": ["zebra queue port"]}]}
STATEMENT = {
    "schema": "memevo.hook/v1",
    "event": "turn_end",
    "session_id": "s-learn",
    "cwd": "/tmp",
    "user_messages": ["Remember that the zebra-queue service listens on port 5433."],
    "final_message": "Noted.",
}
WAIT = 60.0
CUT_TEXT = json.dumps(ANSWER)[:40]  # an answer cut off at the output limit


class Agent:
    """One CLI: its fake model API, its throwaway HOME set up, its environment for the worker."""

    provider: str
    install: tuple[str, ...]

    def __init__(self, binary: Path, home: Path, state_dir: Path) -> None:
        self.binary, self.home, self.state_dir = binary, home, state_dir

    def fake(self) -> Any:
        raise NotImplementedError

    def prepare(self, base_url: str) -> None:
        """Write the agent's own configuration (its provider pointing at the fake)."""

    def environment(self, base_url: str) -> dict[str, str]:
        raise NotImplementedError

    def answer(self, fake: Any, delay: float = 0.0) -> None:
        raise NotImplementedError

    def cut_off(self, fake: Any) -> None:
        raise NotImplementedError

    def consolidation_requests(self, fake: Any) -> list[Any]:
        return [r for r in fake.requests if r.method == "POST" and r.body]

    def offered_tools(self, request: Any) -> list[str]:
        raise NotImplementedError

    def reported_model(self, fake: Any) -> str:
        raise NotImplementedError

    def settings_files(self) -> list[Path]:
        raise NotImplementedError

    def session_files(self) -> list[Path]:
        raise NotImplementedError


class Claude(Agent):
    provider, install = "claude-code", ("install", "claude-code", "--scope", "user")

    def fake(self) -> FakeAnthropicServer:
        return FakeAnthropicServer(model="claude-fake")

    def environment(self, base_url: str) -> dict[str, str]:
        return claude_environment(base_url, self.home)

    def answer(self, fake: FakeAnthropicServer, delay: float = 0.0) -> None:
        fake.enqueue(ClaudeReply(text=None, tool="StructuredOutput", tool_input=ANSWER, delay=delay))

    def cut_off(self, fake: FakeAnthropicServer) -> None:
        fake.enqueue(ClaudeReply(text=CUT_TEXT, stop_reason="max_tokens"))

    def offered_tools(self, request: Any) -> list[str]:
        return [t.get("name") for t in request.body.get("tools") or []]

    def reported_model(self, fake: FakeAnthropicServer) -> str:
        return str(self.consolidation_requests(fake)[0].body["model"])  # what the API said it ran

    def settings_files(self) -> list[Path]:
        return [self.home / ".claude" / "settings.json"]

    def session_files(self) -> list[Path]:
        return sorted((self.home / ".claude").glob("projects/**/*.jsonl"))


class Codex(Agent):
    provider, install = "codex", ("install", "codex")

    def fake(self) -> FakeCodexServer:
        return FakeCodexServer()

    def prepare(self, base_url: str) -> None:
        (self.home / ".codex").mkdir(parents=True, exist_ok=True)
        config = self.home / ".codex" / "config.toml"
        existing = config.read_text(encoding="utf-8") if config.exists() else ""
        config.write_text(config_toml(base_url) + "\n" + existing, encoding="utf-8")

    def environment(self, base_url: str) -> dict[str, str]:
        return codex_environment(self.home)

    def answer(self, fake: FakeCodexServer, delay: float = 0.0) -> None:
        # A request that offers no tool is classified "aux" by the fake.
        fake.enqueue(CodexReply(text=json.dumps(ANSWER), delay=delay), kind="aux")

    def cut_off(self, fake: FakeCodexServer) -> None:
        fake.enqueue(CodexReply(text=CUT_TEXT), kind="aux")

    def offered_tools(self, request: Any) -> list[str]:
        return [t.get("name") or t.get("type") for t in request.body.get("tools") or []]

    def reported_model(self, fake: FakeCodexServer) -> str:
        return str(self.consolidation_requests(fake)[0].body["model"])

    def settings_files(self) -> list[Path]:
        return [self.home / ".codex" / "config.toml", self.home / ".codex" / "hooks.json"]

    def session_files(self) -> list[Path]:
        return sorted((self.home / ".codex").glob("sessions/**/*.jsonl"))


class Gemini(Agent):
    provider, install = "gemini", ("install", "gemini", "--scope", "user")

    def fake(self) -> FakeGeminiServer:
        return FakeGeminiServer()

    def prepare(self, base_url: str) -> None:
        path = self.home / ".gemini" / "settings.json"
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        write_json(path, with_base_settings(current), end="\n")

    def environment(self, base_url: str) -> dict[str, str]:
        return gemini_environment(base_url, self.home)

    def answer(self, fake: FakeGeminiServer, delay: float = 0.0) -> None:
        fake.enqueue(GeminiReply(text=json.dumps(ANSWER), delay=delay))

    def cut_off(self, fake: FakeGeminiServer) -> None:
        fake.enqueue(GeminiReply(text=CUT_TEXT, finish_reason="MAX_TOKENS"))

    def offered_tools(self, request: Any) -> list[str]:
        return [d.get("name") for t in request.body.get("tools") or [] for d in t.get("functionDeclarations") or []]

    def reported_model(self, fake: FakeGeminiServer) -> str:
        return str(self.consolidation_requests(fake)[0].path.split("/models/")[1].split(":")[0])

    def settings_files(self) -> list[Path]:
        return [self.home / ".gemini" / "settings.json"]

    def session_files(self) -> list[Path]:
        return sorted((self.home / ".gemini").glob("tmp/*/chats/*"))


class Pi(Agent):
    provider, install = "pi", ("install", "pi", "--scope", "user")

    def fake(self) -> FakeOpenAIChatServer:
        return FakeOpenAIChatServer()

    @property
    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def prepare(self, base_url: str) -> None:
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        (self.agent_dir / "models.json").write_text(json.dumps(models_json(base_url), indent=2), encoding="utf-8")
        settings = self.agent_dir / "settings.json"
        current = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
        write_json(settings, {**current, "defaultProvider": "fake", "defaultModel": "fake-model"})

    def environment(self, base_url: str) -> dict[str, str]:
        return pi_environment(self.home)

    def answer(self, fake: FakeOpenAIChatServer, delay: float = 0.0) -> None:
        fake.enqueue(ChatReply(text=json.dumps(ANSWER), delay=delay))

    def consolidation_requests(self, fake: Any) -> list[Any]:
        return [r for r in fake.requests() if r.body]

    def cut_off(self, fake: FakeOpenAIChatServer) -> None:
        fake.enqueue(ChatReply(text=CUT_TEXT, finish_reason="length"))

    def offered_tools(self, request: Any) -> list[str]:
        return [t.get("function", {}).get("name") for t in request.body.get("tools") or []]

    def reported_model(self, fake: FakeOpenAIChatServer) -> str:
        return f"fake/{self.consolidation_requests(fake)[0].body['model']}"

    def settings_files(self) -> list[Path]:
        return [self.agent_dir / "settings.json", self.agent_dir / "models.json"]

    def session_files(self) -> list[Path]:
        return sorted(self.agent_dir.glob("sessions/**/*.jsonl"))


# How each CLI reports an answer cut off at the output limit: Pi says so; Codex and Gemini CLI
# print the partial text, which the strict parse of the answer refuses; Claude Code asks once
# more for its structured-output tool and stops at --max-turns 1 (error_max_turns).
CUT_OFF_FAILURES = {
    "claude-code": {("invalid_output", "wrong_finish_reason")},
    "codex": {("invalid_output", "not_json")},
    "gemini": {("invalid_output", "not_json")},
    "pi": {("output_limit", "cut_off")},
}
AGENTS = {
    "claude-code": (Claude, "claude_bin"),
    "codex": (Codex, "codex_bin"),
    "gemini": (Gemini, "gemini_bin"),
    "pi": (Pi, "pi_bin"),
}


@pytest.fixture(params=sorted(AGENTS))
def agent(request: pytest.FixtureRequest, user_home: Path, home: Path) -> Agent:
    kind, binary_fixture = AGENTS[request.param]
    binary = request.getfixturevalue(binary_fixture)
    made = kind(binary, user_home, home)
    extra = {"PI_CODING_AGENT_DIR": str(user_home / ".pi" / "agent")} if made.provider == "pi" else {}
    memevo_as_user(user_home, home, *made.install, **extra)
    return made


def capture_statement(state_dir: Path) -> None:
    done = run_memevo("hook", "turn_end", input=json.dumps(STATEMENT), env=memevo_env(state_dir))
    assert done.returncode == 0 and len(sources(state_dir)) == 1, done.stderr


@contextmanager
def learning_worker(agent: Agent, base_url: str, tmp_path: Path, **extra: str) -> Iterator[MemevoWorker]:
    """``memevo worker`` with the agent's CLI as its model (no model URL)."""
    env = {k: v for k, v in agent.environment(base_url).items() if not k.startswith("MEMEVO_")}
    env.update(
        {
            "MEMEVO_HOME": str(agent.state_dir),
            "MEMEVO_MODEL_PROVIDER": agent.provider,
            "MEMEVO_MODEL_COMMAND": str(agent.binary),
            "MEMEVO_ATTEMPT_SECONDS": "60",
            **extra,
        }
    )
    if os.environ.get("MEMEVO_DATABASE_URL"):
        env["MEMEVO_DATABASE_URL"] = os.environ["MEMEVO_DATABASE_URL"]
    worker = MemevoWorker(env, "unused", log=tmp_path / "worker.log")
    worker.env = {k: v for k, v in worker.env.items() if k not in ("MEMEVO_MODEL_URL", "MEMEVO_MODEL")}
    with worker:
        yield worker


def learning_lines(state_dir: Path) -> list[dict[str, Any]]:
    path = state_dir / "logs" / "learning.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def snapshot(paths: list[Path]) -> dict[str, bytes | None]:
    return {str(p): p.read_bytes() if p.exists() else None for p in paths}


def test_a_capture_is_learned_through_the_agents_own_cli(agent: Agent, tmp_path: Path) -> None:
    with agent.fake() as fake:
        agent.prepare(fake.base_url)
        before = snapshot(agent.settings_files())
        assert any(before.values())
        capture_statement(agent.state_dir)
        log_before = hook_log(agent.state_dir)
        logs_before = snapshot([agent.state_dir / "logs" / n for n in ("injections.jsonl", "learning.jsonl")])
        agent.answer(fake)
        with learning_worker(agent, fake.base_url, tmp_path) as worker:
            [claim] = wait_until(
                lambda: [c for c in claims(agent.state_dir, "active") if c["content"] == CLAIM],
                WAIT,
                "the claim learned through the CLI",
                describe=worker.output,
            )
        started = (agent.state_dir / "logs" / "worker.log").read_text(encoding="utf-8")
        assert f"learning through the agent's CLI {agent.binary}" in started
        [request] = agent.consolidation_requests(fake)  # one call per attempt
        assert agent.offered_tools(request) in ([], ["StructuredOutput"])
        assert "zebra-queue" in json.dumps(request.body)
        assert claim["model_id"] == agent.reported_model(fake)
        assert len(sources(agent.state_dir)) == 1  # no memevo hook captured the consolidation
        assert hook_log(agent.state_dir) == log_before
        # No digest given and no turn logged: the injection log is as it was, and the learning
        # log only gained the worker's line for its model call, with what the CLI reported it cost.
        logs_after = snapshot([agent.state_dir / "logs" / n for n in ("injections.jsonl", "learning.jsonl")])
        injections, learning = (str(agent.state_dir / "logs" / n) for n in ("injections.jsonl", "learning.jsonl"))
        assert logs_after[injections] == logs_before[injections]
        lines = [json.loads(line) for line in (logs_after[learning] or b"").splitlines()]
        [call] = [line for line in lines if line.get("kind") == "model_call"]
        assert [line for line in lines if line.get("kind") != "model_call"] == [
            json.loads(line) for line in (logs_before[learning] or b"").splitlines()
        ]
        assert (call["provider"], call["outcome"], call["model"]) == (agent.provider, "done", claim["model_id"])
        assert call["prompt_tokens"] > 0 and call["completion_tokens"] > 0
        # Claude Code and Pi report what a call cost (a number, maybe 0 for a fake model); the others do not.
        reports_cost = agent.provider in ("claude-code", "pi")
        assert (call["cost_usd"] is not None) == reports_cost, call
        worker_status = json.loads(run_memevo("status", "--json", env=memevo_env(agent.state_dir)).stdout)["worker"]
        assert worker_status["model_costed_calls_today"] == (1 if reports_cost else 0)
        assert worker_status["model_cost_usd_today"] == round(call["cost_usd"] or 0.0, 6)
        assert agent.session_files() == []
        assert snapshot(agent.settings_files()) == before


def test_a_cut_off_answer_writes_nothing(agent: Agent, tmp_path: Path) -> None:
    with agent.fake() as fake:
        agent.prepare(fake.base_url)
        capture_statement(agent.state_dir)
        agent.cut_off(fake)
        with learning_worker(agent, fake.base_url, tmp_path) as worker:
            [(code, reason)] = wait_until(
                lambda: query(
                    agent.state_dir,
                    "SELECT last_error_code, last_error_reason FROM sources WHERE last_error_code IS NOT NULL",
                ),
                WAIT,
                "the attempt to fail",
                describe=worker.output,
            )
            # The refused answer was spent: its model-call line says so, with its cost where reported.
            [call] = wait_until(
                lambda: [line for line in learning_lines(agent.state_dir) if line.get("kind") == "model_call"],
                WAIT,
                "the model call's line in the learning log",
                describe=worker.output,
            )
        assert (code, reason) in CUT_OFF_FAILURES[agent.provider], (code, reason)
        assert claims(agent.state_dir) == []
        assert call["outcome"] == f"{code} ({reason})" and call["completion_tokens"] > 0
        assert (call["cost_usd"] is not None) == (agent.provider in ("claude-code", "pi")), call


def _processes_running(binary: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
            stat = (entry / "stat").read_text(encoding="ascii")
        except OSError:
            continue
        if "memevo-model-call-" in cmdline or (str(binary) in cmdline and "worker" not in cmdline):
            if stat.rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
    return found


def test_a_cli_whose_model_never_answers_is_killed_at_the_deadline(agent: Agent, tmp_path: Path) -> None:
    with agent.fake() as fake:
        agent.prepare(fake.base_url)
        capture_statement(agent.state_dir)
        for _ in range(3):
            agent.answer(fake, delay=120)
        with learning_worker(agent, fake.base_url, tmp_path, MEMEVO_ATTEMPT_SECONDS="8") as worker:
            wait_until(
                lambda: query(agent.state_dir, "SELECT 1 FROM sources WHERE last_error_code = 'timeout'"),
                WAIT,
                "the attempt to time out",
                describe=worker.output,
            )
            wait_until(lambda: not _processes_running(agent.binary), 5, "the CLI's processes to be gone")
        assert claims(agent.state_dir, "active") == []


@pytest.mark.parametrize(
    ("provider", "program"), [("claude-code", "claude"), ("codex", "codex"), ("gemini", "gemini"), ("pi", "pi")]
)
def test_a_missing_cli_is_doctors_error_naming_it(
    tmp_path: Path, home: Path, user_home: Path, provider: str, program: str
) -> None:
    env = memevo_env(home, home=user_home, MEMEVO_MODEL_PROVIDER=provider, PATH=str(tmp_path / "no-bin"))
    done = run_memevo("doctor", "--json", env=env)
    report = json.loads(done.stdout)
    [check] = [c for c in report["checks"] if c["name"] == "model"]
    assert check["status"] == "error" and f"`{program}` not found" in check["summary"], check
    assert "MEMEVO_MODEL_COMMAND" in check["fix"]
    assert done.returncode != 0


def test_doctor_finds_the_cli_and_check_model_makes_one_tiny_call(agent: Agent) -> None:
    with agent.fake() as fake:
        agent.prepare(fake.base_url)
        agent.answer(fake)
        env = {k: v for k, v in agent.environment(fake.base_url).items() if not k.startswith("MEMEVO_")}
        env.update(
            {
                "MEMEVO_HOME": str(agent.state_dir),
                "MEMEVO_MODEL_PROVIDER": agent.provider,
                "MEMEVO_MODEL_COMMAND": str(agent.binary),
            }
        )
        done = run_memevo("doctor", "--check-model", "--json", env=env, timeout=120)
        report = json.loads(done.stdout)
        checks = {c["name"]: c for c in report["checks"]}
        model = checks["model"]
        assert model["status"] in ("ok", "warn") and model["details"]["command"] == str(agent.binary), model
        assert model["details"]["version"] and str(agent.binary) in model["summary"]
        if agent.provider == "claude-code":
            assert model["details"]["logged_in"] is True  # the dummy API key the fake accepts
        assert checks["model call"]["status"] == "ok", checks["model call"]
        assert len(agent.consolidation_requests(fake)) == 1
        assert claims(agent.state_dir) == [] and sources(agent.state_dir) == []  # doctor writes nothing
