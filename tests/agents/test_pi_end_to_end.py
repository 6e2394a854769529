"""End to end with the real Pi CLI: install memevo's extension, remember, consolidate, recall.

Everything is real except the two models: ``memevo install pi --scope user`` (the installed
``.venv/bin/memevo``) writes ``memevo.ts`` into the throwaway ``PI_CODING_AGENT_DIR``
(``<HOME>/.pi/agent``), the pinned ``pi`` loads it and runs headless against a loopback fake
of the OpenAI chat completions API (streamed), and ``memevo worker -w 1`` consolidates
through a loopback fake OpenAI-compatible model (its own process). State lives in the
test's ``MEMEVO_HOME``, handed to the extension's ``memevo hook`` through Pi's environment.

Session 1 runs in project A (``tmp/repo-a``), session 2 in an unrelated sibling B: recall
searches every origin (docs/recall.md), so a fact learned in A is recalled in B without
sharing the project, the session or the session file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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
    hook_log,
    learned_claim,
    memevo_as_user,
    seed_claim,
    unusable_state_dir,
)
from tests.support.fake_openai_chat import FakeOpenAIChatServer, request_text, turn_text, user_texts
from tests.support.memevo_worker import MEMEVO_BIN, claims, sources, wait_until
from tests.support.pi_cli import PiRunner

pytestmark = pytest.mark.slow


def extension_file(user_home: Path) -> Path:
    return user_home / ".pi" / "agent" / "extensions" / "memevo.ts"


def memevo_cli(user_home: Path, state_dir: Path, *args: str) -> None:
    """The installed ``memevo`` with the throwaway HOME and Pi dir, as a person would run it."""
    memevo_as_user(user_home, state_dir, *args, PI_CODING_AGENT_DIR=str(user_home / ".pi" / "agent"))


def install_extension(user_home: Path, state_dir: Path) -> str:
    memevo_cli(user_home, state_dir, "install", "pi", "--scope", "user")
    text = extension_file(user_home).read_text(encoding="utf-8")
    assert f"const MEMEVO_COMMAND: string[] = {json.dumps([str(MEMEVO_BIN)])};" in text
    return text


def runner_in(fake: FakeOpenAIChatServer, pi_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> PiRunner:
    """A ``pi`` runner in ``cwd`` whose extension's hooks get ``MEMEVO_HOME=state_dir``."""
    return agent_runner(PiRunner, fake.base_url, pi_bin, user_home, cwd, state_dir, timeout=60)


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; agent_end captures it, the worker turns it into a
    claim; session 2 in B asks, and the model request carries memevo's digest as a hidden
    message beside the prompt."""
    install_extension(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    with consolidating(tmp_path, home, user_home, CLAIM, "staging db port") as (model, worker):
        pi_fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(pi_fake, pi_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.result == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = pi_fake.completion_requests()
        assert request_1.body and request_1.body.get("stream") is True  # Pi streams; the fake answered in SSE
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        # Pi exits only once the extension's capture process has finished.
        source = captured_statement(home, "the agent_end capture", repo_a, first.session_id, timeout=5)
        claim = learned_claim(home, worker, model, source, repo_a)

    pi_fake.enqueue("It listens on port 5433.")
    second = runner_in(pi_fake, pi_bin, user_home, repo_b, home).run(QUESTION)

    assert second.result == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = pi_fake.completion_requests()
    beside_prompt = turn_text(request_2)
    assert DIGEST_OPEN in beside_prompt, f"no memevo digest beside the prompt:\n{beside_prompt[-3000:]}"
    digest = beside_prompt[beside_prompt.index(DIGEST_OPEN) :]
    assert CLAIM in digest and claim["id"] in digest, digest[:3000]
    # The digest is its own (hidden, user-role) message right after the prompt.
    prompt, injected = user_texts(request_2)[-2:]
    assert prompt == QUESTION and injected.startswith(DIGEST_OPEN), user_texts(request_2)
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn, and the injected digest is never learned back.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert_no_hook_errors(home)


def test_compaction_summary_is_captured(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A real compaction (RPC mode's ``compact``) reaches memevo through session_compact."""
    install_extension(user_home, home)
    runner = runner_in(pi_fake, pi_bin, user_home, tmp_path / "repo", home)
    pi_fake.enqueue(
        "We will move billing to Postgres 16.",
        "Decision: the billing service moves to Postgres 16 (SUMMARY-MARKER-77).",
    )

    first = runner.run("We are moving the billing service to Postgres 16.")
    response = runner.compact()

    assert response.get("success") is True, response
    assert "SUMMARY-MARKER-77" in response["data"]["summary"]
    summaries = wait_until(
        lambda: [s for s in sources(home) if s["source_type"] == "summary"],
        5,
        "the session_compact capture",
        describe=lambda: hook_log(home),
    )
    assert len(summaries) == 1, summaries
    assert "SUMMARY-MARKER-77" in json.dumps(summaries[0]["body"])
    assert summaries[0]["body"]["session_id"] == first.session_id
    # "Decision: …" labels itself: a claim at once, without the worker.
    assert any("Postgres 16" in c["content"] for c in claims(home, "active")), claims(home)
    assert_no_hook_errors(home)


def test_subagent_is_skipped_and_uninstall_disconnects_memevo(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A Pi started by another Pi (it inherits ``MEMEVO_PI_PID`` from its parent's extension,
    or runs as Pi's subagent example starts one) neither recalls nor captures; the user's own
    Pi does; after ``memevo uninstall pi`` it does neither and the file is gone."""
    install_extension(user_home, home)
    install_extension(user_home, home)  # idempotent
    seed_claim(home, tmp_path)
    runner = runner_in(pi_fake, pi_bin, user_home, tmp_path / "repo", home)
    pi_fake.enqueue("sub: no memory", "sub: still none", "5433, per memevo.", "I do not know.")

    outer_pid = str(os.getpid())  # any other process's id: this run is a child of that "Pi"
    sub = runner.run(f"{STATEMENT} (subagent)", env={"MEMEVO_PI_PID": outer_pid})
    # How Pi's subagent example starts its agents: pi --mode json -p --no-session
    ephemeral = runner.run(f"{QUESTION} (subagent)", args=["--no-session"])
    mine = runner.run(QUESTION)
    memevo_cli(user_home, home, "uninstall", "pi", "--scope", "user")
    after = runner.run(QUESTION)

    assert (sub.result, ephemeral.result) == ("sub: no memory", "sub: still none")
    assert (mine.result, after.result) == ("5433, per memevo.", "I do not know.")
    in_sub, in_ephemeral, with_memevo, without = pi_fake.completion_requests()
    assert DIGEST_OPEN not in request_text(in_sub, include_system=True)
    assert DIGEST_OPEN not in request_text(in_ephemeral, include_system=True)
    assert DIGEST_OPEN in turn_text(with_memevo) and CLAIM in turn_text(with_memevo)
    assert DIGEST_OPEN not in request_text(without, include_system=True)
    # Only the seed: the subagent's "remember that" was not captured.
    assert [s["source_type"] for s in sources(home)] == ["summary"], sources(home)
    assert not extension_file(user_home).exists()
    assert list(extension_file(user_home).parent.iterdir()) == []  # a pristine file leaves no backup


@pytest.mark.parametrize("layout", ["home_is_a_file", "home_under_a_file"])
def test_unusable_state_dir_leaves_the_turn_working_and_injects_nothing(
    layout: str, pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory: every call fails open, the prompt is answered."""
    install_extension(user_home, home)
    blocker, broken = unusable_state_dir(tmp_path, layout)
    runner = runner_in(pi_fake, pi_bin, user_home, tmp_path / "repo", broken)
    pi_fake.enqueue("Answer despite memevo.")

    run = runner.run(STATEMENT)

    assert (run.returncode, run.result) == (0, "Answer despite memevo."), run.describe()
    [request] = pi_fake.completion_requests()
    assert DIGEST_OPEN not in request_text(request, include_system=True)
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    assert not (user_home / ".local" / "share" / "memevo").exists()
    assert not home.exists()
