"""Across agents: a memory learned through Claude Code is recalled through Codex.

One user, one memevo: ``memevo install claude-code`` and ``memevo install codex`` write
their hooks into the same throwaway HOME, both CLIs hand the same ``MEMEVO_HOME`` to
the hooks. Session 1 is the real Claude Code (``claude -p``, fake Messages API) in project
A: "remember that …" is captured by its Stop hook and consolidated by a real ``memevo
worker``. Session 2 is the real Codex (``codex exec``, fake Responses API) in project B:
the question's model request carries memevo's digest with the claim learned through
Claude Code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.agent_clis import ClaudeRunner, require_claude
from tests.support.codex_cli import CodexRunner, require_codex
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_anthropic import request_text as claude_request_text
from tests.support.fake_codex import FakeCodexServer, turn_text
from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.memevo_worker import MemevoWorker, claims, memevo_env, run_memevo, sources, wait_until

pytestmark = pytest.mark.slow

STATEMENT = "Remember that the billing service deploys with ./ship.sh from the infra repo."
QUESTION = "How does the billing service deploy?"
CLAIM = "The billing service deploys with ./ship.sh from the infra repo."
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return require_claude()


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return require_codex()


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def claude_fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def codex_fake() -> Iterator[FakeCodexServer]:
    with FakeCodexServer() as server:
        yield server


def install(agent: str, user_home: Path, state_dir: Path) -> None:
    env = memevo_env(state_dir, home=user_home)
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        env.pop(name, None)
    done = run_memevo("install", agent, env=env, cwd=user_home)
    assert done.returncode == 0, f"memevo install {agent} failed:\n{done.stdout}\n{done.stderr}"


def _hook_log(state_dir: Path) -> str:
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def test_a_memory_learned_through_claude_code_is_recalled_through_codex(
    claude_bin: Path,
    codex_bin: Path,
    claude_fake: FakeAnthropicServer,
    codex_fake: FakeCodexServer,
    user_home: Path,
    home: Path,
    tmp_path: Path,
) -> None:
    install("claude-code", user_home, home)
    install("codex", user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    model_reply = Reply.of_claims([{"kind": "fact", "content": CLAIM, "searchTerms": ["billing deploy"]}])
    with (
        FakeModelProcess(tmp_path, [model_reply], default="empty") as model,
        MemevoWorker(memevo_env(home, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        claude_fake.enqueue("Noted.")
        claude = ClaudeRunner(
            claude_fake.base_url,
            home=user_home,
            cwd=repo_a,
            binary=claude_bin,
            env={"MEMEVO_HOME": str(home)},
            timeout=60,
        )
        taught = claude.run(STATEMENT)
        assert taught.result == "Noted.", taught.describe()
        [source] = wait_until(
            lambda: sources(home), 10, "Claude Code's Stop hook to capture", describe=lambda: _hook_log(home)
        )
        assert (source["source_type"], source["body"]["agent"]) == ("user_statement", "claude-code"), source

        def active_claim() -> list[dict[str, Any]]:
            return [c for c in claims(home, "active") if c["content"] == CLAIM]

        [claim] = wait_until(
            active_claim,
            CONSOLIDATION_WAIT,
            "the worker to consolidate the statement",
            describe=lambda: f"sources: {sources(home)}\nclaims: {claims(home)}\n{worker.output()}",
        )
        assert len(model.requests()) == 1

    codex_fake.enqueue("It deploys with ./ship.sh.")
    codex = CodexRunner(
        codex_fake.base_url, home=user_home, cwd=repo_b, binary=codex_bin, env={"MEMEVO_HOME": str(home)}, timeout=90
    )
    asked = codex.run(QUESTION)

    assert asked.last_message == "It deploys with ./ship.sh.", asked.describe()
    [request] = codex_fake.main_requests()
    beside_prompt = turn_text(request)
    assert beside_prompt.startswith(QUESTION) and DIGEST_OPEN in beside_prompt, beside_prompt[-3000:]
    digest = beside_prompt[beside_prompt.index(DIGEST_OPEN) :]
    assert CLAIM in digest and claim["id"] in digest and str(repo_a.resolve()) in digest, digest[:3000]
    assert "Remember that" not in json.dumps(request.body), "Codex must not see Claude Code's conversation"
    assert DIGEST_OPEN not in claude_request_text(claude_fake.main_requests()[0], include_system=True)
    # Codex's question is recall, not something to learn: still the one source, from Claude Code.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)
