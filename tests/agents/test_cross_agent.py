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
from pathlib import Path

import pytest

from tests.agents.helpers import (
    DIGEST_OPEN,
    agent_runner,
    assert_no_hook_errors,
    captured_source,
    consolidated_claim,
    consolidating,
    memevo_as_user,
)
from tests.support.agent_clis import ClaudeRunner
from tests.support.codex_cli import CodexRunner
from tests.support.fake_anthropic import FakeAnthropicServer
from tests.support.fake_anthropic import request_text as claude_request_text
from tests.support.fake_codex import FakeCodexServer, turn_text
from tests.support.memevo_worker import sources

pytestmark = pytest.mark.slow

STATEMENT = "Remember that the billing service deploys with ./ship.sh from the infra repo."
QUESTION = "How does the billing service deploy?"
CLAIM = "The billing service deploys with ./ship.sh from the infra repo."


def test_a_memory_learned_through_claude_code_is_recalled_through_codex(
    claude_bin: Path,
    codex_bin: Path,
    claude_fake: FakeAnthropicServer,
    codex_fake: FakeCodexServer,
    user_home: Path,
    home: Path,
    tmp_path: Path,
) -> None:
    memevo_as_user(user_home, home, "install", "claude-code")
    memevo_as_user(user_home, home, "install", "codex")
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    with consolidating(tmp_path, home, user_home, CLAIM, "billing deploy") as (model, worker):
        claude_fake.enqueue("Noted.")
        claude = agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, repo_a, home, timeout=60)
        taught = claude.run(STATEMENT)
        assert taught.result == "Noted.", taught.describe()
        source = captured_source(home, "Claude Code's Stop hook to capture")
        assert (source["source_type"], source["body"]["agent"]) == ("user_statement", "claude-code"), source
        claim = consolidated_claim(home, worker, CLAIM)
        assert len(model.requests()) == 1

    codex_fake.enqueue("It deploys with ./ship.sh.")
    codex = agent_runner(CodexRunner, codex_fake.base_url, codex_bin, user_home, repo_b, home, timeout=90)
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
    assert_no_hook_errors(home)
