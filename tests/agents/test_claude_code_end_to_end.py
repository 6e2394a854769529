"""End to end with the real Claude Code CLI: install memevo, remember, consolidate, recall.

Everything is real except the two models: ``memevo install claude-code --scope user`` (the
installed ``.venv/bin/memevo``) writes the hooks into a throwaway HOME, the pinned ``claude``
binary runs them headless against a loopback fake of the Anthropic Messages API, and
``memevo worker -w 1`` consolidates through a loopback fake OpenAI-compatible model (its
own process). State lives in the test's ``MEMEVO_HOME``, handed to the hooks through
Claude Code's environment (``home`` is the suite's autouse state-dir fixture; the user's
throwaway HOME is ``user_home``).

Directories: session 1 runs in project A (``tmp/repo-a``), session 2 in an unrelated
sibling project B (``tmp/repo-b``, not inside A). A claim's *origin* is the real path of
the directory it was learned in (A here), but recall "searches every origin"
(docs/recall.md): origins only help identify a subject, they never filter. So a fact
learned in A must be recalled in B, which is the meaningful, strongest form of "session 2
in directory B": it cannot pass by sharing the project, the session or the transcript.
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
    hook_log,
    learned_claim,
    memevo_as_user,
    recording_hook,
    records,
    seed_claim,
    unusable_state_dir,
)
from tests.support.agent_clis import ClaudeRunner, hook_settings
from tests.support.fake_anthropic import FakeAnthropicServer, request_text, turn_text
from tests.support.memevo_worker import MEMEVO_BIN, sources

pytestmark = pytest.mark.slow

HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent claude-code"


def install_user_hooks(user_home: Path, state_dir: Path) -> dict[str, Any]:
    """``memevo install claude-code --scope user`` into ``user_home``; the written settings."""
    memevo_as_user(user_home, state_dir, "install", "claude-code", "--scope", "user")
    settings = user_settings(user_home)
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PostCompact"):
        assert hook_commands(settings, event).count(HOOK_COMMAND) == 1, (event, settings)
    return settings


def user_settings(user_home: Path) -> dict[str, Any]:
    return json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))


def runner_in(fake: FakeAnthropicServer, claude_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> ClaudeRunner:
    """A ``claude`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return agent_runner(ClaudeRunner, fake.base_url, claude_bin, user_home, cwd, state_dir, timeout=60)


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the Stop hook captures it, the worker turns it
    into a claim; session 2 in B asks, and the model request carries memevo's digest."""
    install_user_hooks(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    with consolidating(tmp_path, home, user_home, CLAIM, "staging db port") as (model, worker):
        claude_fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(claude_fake, claude_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.result == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = claude_fake.main_requests()  # the Stop hook printed nothing: Claude did not continue
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        source = captured_statement(home, "the Stop hook's capture", repo_a, first.session_id)
        claim = learned_claim(home, worker, model, source, repo_a)
        assert (claim.get("evidence") or {}).get("basis") == "user_statement", claim

    claude_fake.enqueue("It listens on port 5433.")
    second = runner_in(claude_fake, claude_bin, user_home, repo_b, home).run(QUESTION)

    assert second.result == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = claude_fake.main_requests()  # one model request per plain turn
    beside_prompt = turn_text(request_2)
    assert QUESTION in beside_prompt
    assert DIGEST_OPEN in beside_prompt, f"no memevo digest beside the prompt:\n{beside_prompt[-3000:]}"
    digest = beside_prompt[beside_prompt.index(DIGEST_OPEN) :]
    assert CLAIM in digest and claim["id"] in digest, digest[:3000]
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn: still exactly one source.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert_no_hook_errors(home)


def test_compaction_summary_is_captured_once(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """``/compact`` fires both PostCompact and SessionStart(compact); one ``summary`` source."""
    install_user_hooks(user_home, home)
    project = tmp_path / "repo"
    runner = runner_in(claude_fake, claude_bin, user_home, project, home)
    # A project-level recorder beside memevo's user-level hooks shows that both events fired.
    fired = tmp_path / "fired.jsonl"
    record = recording_hook(tmp_path, fired)
    runner.write_project_settings(hook_settings({"SessionStart": record, "PostCompact": record}))
    summary = (
        "<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: move the billing service "
        "to Postgres 16 (SUMMARY-MARKER-77).\n</summary>"
    )
    claude_fake.enqueue("We will move billing to Postgres 16.")
    claude_fake.enqueue_compact_summary(summary)

    first = runner.run("We are moving the billing service to Postgres 16.")
    compacted = runner.run("/compact", continue_session=True)

    assert compacted.session_id == first.session_id, compacted.describe()
    assert len(claude_fake.compact_requests()) == 1
    assert len(claude_fake.main_requests()) == 1
    events = [(r["hook_event_name"], r.get("source")) for r in records(fired)]
    assert ("PostCompact", None) in events and ("SessionStart", "compact") in events, events
    summaries = [s for s in sources(home) if s["source_type"] == "summary"]
    assert len(summaries) == 1, (summaries, hook_log(home))
    assert "SUMMARY-MARKER-77" in json.dumps(summaries[0]["body"])
    assert_no_hook_errors(home)


@pytest.mark.parametrize("layout", ["home_is_a_file", "home_under_a_file"])
def test_unusable_state_dir_leaves_the_turn_working_and_injects_nothing(
    layout: str, claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory (tests run as root, so chmod 000 would
    not block reads): every hook fails open, the turn ends normally with one model request."""
    install_user_hooks(user_home, home)
    blocker, broken = unusable_state_dir(tmp_path, layout)
    runner = runner_in(claude_fake, claude_bin, user_home, tmp_path / "repo", broken)
    claude_fake.enqueue("Answer despite memevo.", "Second answer despite memevo.")

    first = runner.run(STATEMENT)
    second = runner.run(QUESTION, continue_session=True)

    assert (first.returncode, first.result) == (0, "Answer despite memevo."), first.describe()
    assert (second.returncode, second.result) == (0, "Second answer despite memevo."), second.describe()
    assert len(claude_fake.main_requests()) == 2  # no Stop hook made Claude continue
    for request in claude_fake.main_requests():
        text = request_text(request, include_system=True)
        assert DIGEST_OPEN not in text and "additionalContext" not in text and "hookSpecificOutput" not in text
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    # No silent fallback to another state dir (the default lies under the throwaway HOME).
    assert not (user_home / ".local" / "share" / "memevo").exists()
    assert not home.exists()


def test_uninstall_disconnects_memevo_and_keeps_other_hooks(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Install twice (idempotent) beside a hook of the user's own; recall works; after
    ``memevo uninstall claude-code`` the same question gets no digest, the user's hook stays."""
    prompts = tmp_path / "prompts.jsonl"
    own_hook = recording_hook(tmp_path, prompts)
    runner = runner_in(claude_fake, claude_bin, user_home, tmp_path / "repo", home)
    runner.write_user_settings(hook_settings({"UserPromptSubmit": own_hook}))
    install_user_hooks(user_home, home)
    install_user_hooks(user_home, home)
    assert hook_commands(user_settings(user_home), "UserPromptSubmit").count(own_hook) == 1
    seed_claim(home, tmp_path)
    claude_fake.enqueue("5433, per memevo.", "I do not know.")

    before = runner.run(QUESTION)
    memevo_as_user(user_home, home, "uninstall", "claude-code", "--scope", "user")
    after = runner.run(QUESTION)

    assert before.result == "5433, per memevo." and after.result == "I do not know.", after.describe()
    with_memevo, without = claude_fake.main_requests()
    assert DIGEST_OPEN in turn_text(with_memevo) and CLAIM in turn_text(with_memevo)
    assert DIGEST_OPEN not in request_text(without, include_system=True)
    settings = user_settings(user_home)
    everything = [c for event in settings.get("hooks", {}) for c in hook_commands(settings, event)]
    assert not any(str(MEMEVO_BIN) in str(c) for c in everything), settings
    assert hook_commands(settings, "UserPromptSubmit") == [own_hook]
    assert [r["prompt"] for r in records(prompts)] == [QUESTION, QUESTION]
