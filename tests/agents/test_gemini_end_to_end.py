"""End to end with the real Gemini CLI: install memevo, remember, consolidate, recall.

Everything is real except the two models: ``memevo install gemini --scope user`` (the
installed ``.venv/bin/memevo``) writes the hooks into a throwaway HOME, the pinned
``gemini`` binary (tests/support/gemini_cli.py) runs them headless against a loopback fake
of the Gemini API (tests/support/fake_gemini.py), and ``memevo worker -w 1`` consolidates
through a loopback fake OpenAI-compatible model (its own process). State lives in the
test's ``MEMEVO_HOME`` (the suite's autouse ``home``), handed to the hooks through the
CLI's environment; the user's throwaway HOME is ``user_home``.

Session 1 runs in project A (``tmp/repo-a``), session 2 in an unrelated sibling project B:
recall searches every origin, so a fact learned in A must be recalled in B.

Gemini CLI escapes ``<`` and ``>`` of a hook's ``additionalContext`` and wraps it in
``<hook_context>``: the model reads ``&lt;memevo-recall&gt;``; :func:`hook_contexts`
unescapes it to compare.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memory_core.store.engines.database import Store
from tests.agents.helpers import (
    CLAIM,
    DIGEST_OPEN,
    QUESTION,
    STATEMENT,
    agent_runner,
    assert_no_hook_errors,
    captured_statement,
    consolidating,
    git,
    hook_commands,
    hook_log,
    learned_claim,
    make_widget_repo,
    memevo_as_user,
    recording_hook,
    records,
    seed_claim,
    unusable_state_dir,
)
from tests.factories import make_memory, seed
from tests.support.fake_gemini import FakeGeminiServer, hook_contexts, request_text, turn_text
from tests.support.fake_gemini import Reply as GeminiReply
from tests.support.gemini_cli import GeminiRunner
from tests.support.memevo_worker import MEMEVO_BIN, sources, wait_until

pytestmark = pytest.mark.slow

HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent gemini"


def user_settings(user_home: Path) -> dict[str, Any]:
    return json.loads((user_home / ".gemini" / "settings.json").read_text(encoding="utf-8"))


def install_user_hooks(user_home: Path, state_dir: Path) -> dict[str, Any]:
    """``memevo install gemini --scope user`` into ``user_home``; the written settings."""
    memevo_as_user(user_home, state_dir, "install", "gemini", "--scope", "user")
    settings = user_settings(user_home)
    for event in ("SessionStart", "BeforeAgent", "AfterAgent"):
        assert hook_commands(settings, event).count(HOOK_COMMAND) == 1, (event, settings)
    assert settings["hooksConfig"]["enabled"] is True
    return settings


def runner_in(fake: FakeGeminiServer, gemini_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> GeminiRunner:
    """A ``gemini`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return agent_runner(GeminiRunner, fake.base_url, gemini_bin, user_home, cwd, state_dir, timeout=90)


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the AfterAgent hook captures it, the worker
    turns it into a claim; session 2 in B asks, and the model request carries the digest."""
    install_user_hooks(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    with consolidating(tmp_path, home, user_home, CLAIM, "staging db port") as (model, worker):
        gemini_fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(gemini_fake, gemini_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.response == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = gemini_fake.main_requests()  # AfterAgent printed nothing: the agent did not go on
        assert hook_contexts(request_1) == []  # nothing known yet: BeforeAgent printed nothing
        source = captured_statement(home, "the AfterAgent hook's capture", repo_a, first.session_id)
        assert source["body"]["agent"] == "gemini"
        claim = learned_claim(home, worker, model, source, repo_a)

    gemini_fake.enqueue("It listens on port 5433.")
    second = runner_in(gemini_fake, gemini_bin, user_home, repo_b, home).run(QUESTION)

    assert second.response == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = gemini_fake.main_requests()  # one model request per plain turn
    assert QUESTION in turn_text(request_2)
    contexts = hook_contexts(request_2)
    assert len(contexts) == 1, f"{turn_text(request_2)[-2000:]}\n{hook_log(home)}"
    context = contexts[0]
    assert context.startswith(DIGEST_OPEN), context
    assert CLAIM in context and claim["id"] in context, context[:3000]
    assert "&lt;memevo-recall&gt;" in turn_text(request_2)  # what the model really reads
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn: still exactly one source.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert_no_hook_errors(home)


def test_unusable_state_dir_leaves_the_turn_working_and_injects_nothing(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory: every hook fails open, each turn ends
    normally with one model request and no injected context."""
    install_user_hooks(user_home, home)
    blocker, broken = unusable_state_dir(tmp_path)
    runner = runner_in(gemini_fake, gemini_bin, user_home, tmp_path / "repo", broken)
    gemini_fake.enqueue("Answer despite memevo.", "Second answer despite memevo.")

    first = runner.run(STATEMENT)
    second = runner.run(QUESTION, resume=True)

    assert (first.returncode, first.response) == (0, "Answer despite memevo."), first.describe()
    assert (second.returncode, second.response) == (0, "Second answer despite memevo."), second.describe()
    assert second.session_id == first.session_id
    assert len(gemini_fake.main_requests()) == 2
    for request in gemini_fake.main_requests():
        assert hook_contexts(request) == [] and "memevo-recall" not in request_text(request, include_system=True)
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    assert not (user_home / ".local" / "share" / "memevo").exists() and not home.exists()


def test_uninstall_disconnects_memevo_and_keeps_other_hooks(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Install twice (idempotent) beside a hook of the user's own; recall works; after
    ``memevo uninstall gemini`` the same question gets no digest, the user's hook stays."""
    prompts = tmp_path / "prompts.jsonl"
    own_hook = recording_hook(tmp_path, prompts)
    runner = runner_in(gemini_fake, gemini_bin, user_home, tmp_path / "repo", home)
    runner.write_user_settings(
        {
            "hooks": {
                "BeforeAgent": [{"matcher": "", "hooks": [{"type": "command", "command": own_hook, "timeout": 30000}]}]
            }
        }
    )
    install_user_hooks(user_home, home)
    install_user_hooks(user_home, home)
    assert hook_commands(user_settings(user_home), "BeforeAgent") == [own_hook, HOOK_COMMAND]
    seed_claim(home, tmp_path)
    gemini_fake.enqueue("5433, per memevo.", "I do not know.")

    before = runner.run(QUESTION)
    memevo_as_user(user_home, home, "uninstall", "gemini", "--scope", "user")
    after = runner.run(QUESTION)

    assert before.response == "5433, per memevo." and after.response == "I do not know.", after.describe()
    with_memevo, without = gemini_fake.main_requests()
    contexts = hook_contexts(with_memevo)
    assert len(contexts) == 1, f"{turn_text(with_memevo)[-2000:]}\n{hook_log(home)}"
    assert DIGEST_OPEN in contexts[0] and CLAIM in contexts[0]
    assert hook_contexts(without) == []
    settings = user_settings(user_home)
    everything = [c for event in settings.get("hooks", {}) for c in hook_commands(settings, event)]
    assert not any(str(MEMEVO_BIN) in str(c) for c in everything), settings
    assert hook_commands(settings, "BeforeAgent") == [own_hook]
    assert settings["hooksConfig"]["enabled"] is True  # uninstall leaves the switch the user's hook needs
    assert [r["prompt"] for r in records(prompts)] == [QUESTION, QUESTION]


def test_a_work_turn_reports_its_shell_calls_from_the_transcript(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Gemini's real shell tool commits (ok) and pushes to an unreachable remote (exit code
    128): the AfterAgent hook reads both calls and their results from the chat transcript and
    captures one progress source for the remembered project state."""
    repo = make_widget_repo(tmp_path / "widget")
    pending = make_memory(
        "Widget repository: the parser fix is not committed yet.", origin=str(repo.resolve()), kind="project_state"
    )
    with Store.open(home) as store:
        seed(store, pending)
    install_user_hooks(user_home, home)
    gemini_fake.enqueue(
        GeminiReply.shell('git commit -am "Fix the parser"'),
        GeminiReply.shell("git push origin main"),
        "Committed the parser fix; the push failed because the remote is unreachable.",
    )

    run = runner_in(gemini_fake, gemini_bin, user_home, repo, home).run(
        "Commit the parser fix in the widget repository and push it."
    )

    assert "push failed" in run.response, run.describe()
    assert "Fix the parser" in git(repo, "log", "-1", "--format=%s")  # the commit really happened
    assert len(gemini_fake.main_requests()) == 3  # two tool calls, then the reply; AfterAgent added nothing
    [source] = wait_until(
        lambda: [s for s in sources(home) if s["source_type"] == "progress"],
        10,
        "the AfterAgent hook's progress capture",
        describe=lambda: hook_log(home),
    )
    assert source["body"]["target_ids"] == [pending.id] and source["body"]["agent"] == "gemini"
    text = source["body"]["text"]
    assert "completion: finished" in text
    assert re.search(r"^\[\d+\] commit, ok$", text, re.MULTILINE), text
    assert re.search(r"^\[\d+\] push, error$", text, re.MULTILINE), text
    assert "nonexistent" in text and "Committed the parser fix" in text
    assert_no_hook_errors(home)
