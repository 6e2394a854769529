"""End to end with the real Codex CLI: install memevo, remember, consolidate, recall.

Everything is real except the two models: ``memevo install codex`` (the installed
``.venv/bin/memevo``) writes ``~/.codex/hooks.json`` into a throwaway HOME, the pinned
``codex`` binary (tests/support/codex_cli.py) runs them headless (``codex exec``) against a
loopback fake of the Responses API (tests/support/fake_codex.py), and ``memevo worker -w 1``
consolidates through a loopback fake OpenAI-compatible model (its own process). State
lives in the test's ``MEMEVO_HOME`` (the suite's autouse ``home``), handed to the hooks
through Codex's environment; the user's throwaway HOME is ``user_home``.

Codex runs only hooks the user trusted (``/hooks``); memevo never marks its own hooks
trusted, so every run passes ``--dangerously-bypass-hook-trust``.

Session 1 runs in project A (``tmp/repo-a``), session 2 in an unrelated sibling project B:
recall searches every origin, so a fact learned in A must be recalled in B.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import (
    CLAIM,
    DIGEST_OPEN,
    QUESTION,
    STATEMENT,
    agent_runner,
    assert_no_hook_errors,
    captured_statement,
    consolidating,
    hook_commands,
    learned_claim,
    memevo_as_user,
    seed_claim,
)
from tests.support.codex_cli import CodexRunner
from tests.support.fake_codex import FakeCodexServer, Request, request_text, turn_text
from tests.support.fake_codex import Reply as CodexReply
from tests.support.memevo_worker import MEMEVO_BIN, sources

pytestmark = pytest.mark.slow

HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")


def install_codex_hooks(user_home: Path, state_dir: Path, *command: str) -> dict[str, Any]:
    """``memevo install codex`` (or ``uninstall``) as a user runs it; the hooks file after it."""
    memevo_as_user(user_home, state_dir, *(command or ("install", "codex")))
    return json.loads((user_home / ".codex" / "hooks.json").read_text(encoding="utf-8"))


def runner_in(fake: FakeCodexServer, codex_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> CodexRunner:
    """A ``codex exec`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return agent_runner(CodexRunner, fake.base_url, codex_bin, user_home, cwd, state_dir, timeout=90)


def digest_message(request: Request) -> dict[str, Any] | None:
    """The developer message carrying memevo's digest, if any."""
    return next(
        (
            item
            for item in request.input
            if item.get("role") == "developer"
            and any(DIGEST_OPEN in (part.get("text") or "") for part in item.get("content") or [])
        ),
        None,
    )


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    codex_bin: Path, codex_fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the Stop hook captures it, the worker turns it
    into a claim; session 2 in B asks, and the model request carries memevo's digest."""
    settings = install_codex_hooks(user_home, home)
    for event in EVENTS:
        assert hook_commands(settings, event) == [HOOK_COMMAND], (event, settings)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    with consolidating(tmp_path, home, user_home, CLAIM, "staging db port") as (model, worker):
        codex_fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(codex_fake, codex_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.last_message == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = codex_fake.main_requests()  # the Stop hook printed nothing: Codex did not continue
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        source = captured_statement(home, "the Stop hook's capture", repo_a, first.session_id)
        assert source["body"]["agent"] == "codex"
        claim = learned_claim(home, worker, model, source, repo_a)

    codex_fake.enqueue("It listens on port 5433.")
    second = runner_in(codex_fake, codex_bin, user_home, repo_b, home).run(QUESTION)

    assert second.last_message == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = codex_fake.main_requests()  # one model request per plain turn
    beside_prompt = turn_text(request_2)
    assert beside_prompt.startswith(QUESTION)  # the prompt, then what the hook injected after it
    assert DIGEST_OPEN in beside_prompt, f"no memevo digest beside the prompt:\n{beside_prompt[-3000:]}"
    digest = beside_prompt[beside_prompt.index(DIGEST_OPEN) :]
    assert CLAIM in digest and claim["id"] in digest, digest[:3000]
    message = digest_message(request_2)
    assert message is not None and message["content"][0]["text"].startswith(DIGEST_OPEN)
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn: still exactly one source.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert_no_hook_errors(home)


def test_a_tool_turn_and_uninstall(
    codex_bin: Path, codex_fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A known fact is recalled in a turn that runs a shell command (the fake's ``exec_command``,
    whose output goes back to the model); after ``memevo uninstall codex`` the same question
    gets no digest and the user's own hook stays."""
    runner = runner_in(codex_fake, codex_bin, user_home, tmp_path / "repo", home)
    own = {"type": "command", "command": "true", "timeout": 5}
    runner.write_hooks({"hooks": {"UserPromptSubmit": [{"hooks": [own]}]}})
    install_codex_hooks(user_home, home)
    seed_claim(home, tmp_path)
    codex_fake.enqueue(CodexReply.exec_command("echo port-check"), "5433, per memevo.", "I do not know.")

    before = runner.run(QUESTION)
    settings = install_codex_hooks(user_home, home, "uninstall", "codex")
    after = runner.run(QUESTION)

    assert before.last_message == "5433, per memevo." and after.last_message == "I do not know.", after.describe()
    asked, with_output, without = codex_fake.main_requests()
    assert DIGEST_OPEN in turn_text(asked) and CLAIM in turn_text(asked)
    outputs = [item for item in with_output.input if item.get("type") == "function_call_output"]
    assert len(outputs) == 1 and "port-check" in outputs[0]["output"]  # the shell ran; its output came back
    assert digest_message(with_output) is not None  # the digest stays in the turn's history
    assert DIGEST_OPEN not in request_text(without, include_system=True)
    assert hook_commands(settings, "UserPromptSubmit") == ["true"]
    assert not any(
        str(MEMEVO_BIN) in str(c) for event in settings.get("hooks", {}) for c in hook_commands(settings, event)
    ), settings
    assert_no_hook_errors(home)
