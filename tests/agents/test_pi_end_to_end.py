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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.fake_openai_chat import FakeOpenAIChatServer, request_text, turn_text, user_texts
from tests.support.memevo_worker import MEMEVO_BIN, MemevoWorker, claims, memevo_env, run_memevo, sources, wait_until
from tests.support.pi_cli import PiRunner, require_pi

pytestmark = pytest.mark.slow

STATEMENT = "Remember that the staging database listens on port 5433."
QUESTION = "Which port does the staging database listen on?"
CLAIM = "The staging database listens on port 5433."
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0


@pytest.fixture(scope="session")
def pi_bin() -> Path:
    return require_pi()


@pytest.fixture
def fake() -> Iterator[FakeOpenAIChatServer]:
    with FakeOpenAIChatServer() as server:
        yield server


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """The throwaway HOME every ``pi`` run and ``memevo install`` use."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def extension_file(user_home: Path) -> Path:
    return user_home / ".pi" / "agent" / "extensions" / "memevo.ts"


def memevo_cli(user_home: Path, state_dir: Path, *args: str) -> None:
    """The installed ``memevo`` with the throwaway HOME and Pi dir, as a person would run it."""
    env = memevo_env(state_dir, home=user_home, PI_CODING_AGENT_DIR=str(user_home / ".pi" / "agent"))
    done = run_memevo(*args, env=env, cwd=user_home)
    assert done.returncode == 0, f"memevo {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"


def install_extension(user_home: Path, state_dir: Path) -> str:
    memevo_cli(user_home, state_dir, "install", "pi", "--scope", "user")
    text = extension_file(user_home).read_text(encoding="utf-8")
    assert f"const MEMEVO_COMMAND: string[] = {json.dumps([str(MEMEVO_BIN)])};" in text
    return text


def runner_in(fake: FakeOpenAIChatServer, pi_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> PiRunner:
    """A ``pi`` runner in ``cwd`` whose extension's hooks get ``MEMEVO_HOME=state_dir``."""
    return PiRunner(
        fake.base_url, home=user_home, cwd=cwd, binary=pi_bin, env={"MEMEVO_HOME": str(state_dir)}, timeout=60
    )


def _hook_log(state_dir: Path) -> str:
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def seed_claim(state_dir: Path, cwd: Path) -> None:
    """A labelled fact in a generic compaction summary becomes a claim at once, no worker needed."""
    seed = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "seed",
        "cwd": str(cwd),
        "summary": f"Fact: {CLAIM}",
    }
    done = run_memevo("hook", "compaction", input=json.dumps(seed), env=memevo_env(state_dir))
    assert done.returncode == 0 and [c["content"] for c in claims(state_dir, "active")] == [CLAIM], done.stderr


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    pi_bin: Path, fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; agent_end captures it, the worker turns it into a
    claim; session 2 in B asks, and the model request carries memevo's digest as a hidden
    message beside the prompt."""
    install_extension(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    model_reply = Reply.of_claims([{"kind": "fact", "content": CLAIM, "searchTerms": ["staging db port"]}])
    with (
        FakeModelProcess(tmp_path, [model_reply], default="empty") as model,
        MemevoWorker(memevo_env(home, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(fake, pi_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.result == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = fake.completion_requests()
        assert request_1.body and request_1.body.get("stream") is True  # Pi streams; the fake answered in SSE
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        # Pi exits only once the extension's capture process has finished.
        [source] = wait_until(lambda: sources(home), 5, "the agent_end capture", describe=lambda: _hook_log(home))
        assert source["source_type"] == "user_statement", source
        assert source["origin"] == str(repo_a.resolve()), source
        assert (source["body"]["text"], source["body"]["session_id"]) == (STATEMENT, first.session_id), source

        def active_claim() -> list[dict[str, Any]]:
            return [c for c in claims(home, "active") if c["content"] == CLAIM]

        [claim] = wait_until(
            active_claim,
            CONSOLIDATION_WAIT,
            "the worker to consolidate the statement",
            describe=lambda: f"sources: {sources(home)}\nclaims: {claims(home)}\n{worker.output()}",
        )
        assert claim["origin"] == str(repo_a.resolve())
        assert claim["source_id"] == source["id"]
        [consolidation] = model.requests()
        assert "staging database listens on port 5433" in json.dumps(consolidation["messages"])

    fake.enqueue("It listens on port 5433.")
    second = runner_in(fake, pi_bin, user_home, repo_b, home).run(QUESTION)

    assert second.result == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = fake.completion_requests()
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
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


def test_compaction_summary_is_captured(
    pi_bin: Path, fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A real compaction (RPC mode's ``compact``) reaches memevo through session_compact."""
    install_extension(user_home, home)
    runner = runner_in(fake, pi_bin, user_home, tmp_path / "repo", home)
    fake.enqueue(
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
        describe=lambda: _hook_log(home),
    )
    assert len(summaries) == 1, summaries
    assert "SUMMARY-MARKER-77" in json.dumps(summaries[0]["body"])
    assert summaries[0]["body"]["session_id"] == first.session_id
    # "Decision: …" labels itself: a claim at once, without the worker.
    assert any("Postgres 16" in c["content"] for c in claims(home, "active")), claims(home)
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


def test_subagent_is_skipped_and_uninstall_disconnects_memevo(
    pi_bin: Path, fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A Pi started by another Pi (it inherits ``MEMEVO_PI_PID`` from its parent's extension,
    or runs as Pi's subagent example starts one) neither recalls nor captures; the user's own
    Pi does; after ``memevo uninstall pi`` it does neither and the file is gone."""
    install_extension(user_home, home)
    install_extension(user_home, home)  # idempotent
    seed_claim(home, tmp_path)
    runner = runner_in(fake, pi_bin, user_home, tmp_path / "repo", home)
    fake.enqueue("sub: no memory", "sub: still none", "5433, per memevo.", "I do not know.")

    outer_pid = str(os.getpid())  # any other process's id: this run is a child of that "Pi"
    sub = runner.run(f"{STATEMENT} (subagent)", env={"MEMEVO_PI_PID": outer_pid})
    # How Pi's subagent example starts its agents: pi --mode json -p --no-session
    ephemeral = runner.run(f"{QUESTION} (subagent)", args=["--no-session"])
    mine = runner.run(QUESTION)
    memevo_cli(user_home, home, "uninstall", "pi", "--scope", "user")
    after = runner.run(QUESTION)

    assert (sub.result, ephemeral.result) == ("sub: no memory", "sub: still none")
    assert (mine.result, after.result) == ("5433, per memevo.", "I do not know.")
    in_sub, in_ephemeral, with_memevo, without = fake.completion_requests()
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
    layout: str, pi_bin: Path, fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory: every call fails open, the prompt is answered."""
    install_extension(user_home, home)
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    broken = blocker if layout == "home_is_a_file" else blocker / "memevo"
    runner = runner_in(fake, pi_bin, user_home, tmp_path / "repo", broken)
    fake.enqueue("Answer despite memevo.")

    run = runner.run(STATEMENT)

    assert (run.returncode, run.result) == (0, "Answer despite memevo."), run.describe()
    [request] = fake.completion_requests()
    assert DIGEST_OPEN not in request_text(request, include_system=True)
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    assert not (user_home / ".local" / "share" / "memevo").exists()
    assert not home.exists()
