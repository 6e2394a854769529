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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.codex_cli import CodexRunner, require_codex
from tests.support.fake_codex import FakeCodexServer, Request, request_text, turn_text
from tests.support.fake_codex import Reply as CodexReply
from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.memevo_worker import (
    MEMEVO_BIN,
    MemevoWorker,
    claims,
    memevo_env,
    run_memevo,
    sources,
    wait_until,
)

pytestmark = pytest.mark.slow

STATEMENT = "Remember that the staging database listens on port 5433."
QUESTION = "Which port does the staging database listen on?"
CLAIM = "The staging database listens on port 5433."
HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return require_codex()


@pytest.fixture
def fake() -> Iterator[FakeCodexServer]:
    with FakeCodexServer() as server:
        yield server


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """The throwaway HOME every ``codex`` run and ``memevo install`` use (CODEX_HOME is ``~/.codex``)."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def install_codex_hooks(user_home: Path, state_dir: Path, *command: str) -> dict[str, Any]:
    """``memevo install codex`` (or ``uninstall``) as a user runs it; the hooks file after it."""
    env = memevo_env(state_dir, home=user_home)
    env.pop("CODEX_HOME", None)
    done = run_memevo(*(command or ("install", "codex")), env=env, cwd=user_home)
    assert done.returncode == 0, f"memevo {command} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads((user_home / ".codex" / "hooks.json").read_text(encoding="utf-8"))


def hook_commands(settings: dict[str, Any], event: str) -> list[str]:
    return [h.get("command") for group in settings.get("hooks", {}).get(event, []) for h in group.get("hooks", [])]


def runner_in(fake: FakeCodexServer, codex_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> CodexRunner:
    """A ``codex exec`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return CodexRunner(
        fake.base_url, home=user_home, cwd=cwd, binary=codex_bin, env={"MEMEVO_HOME": str(state_dir)}, timeout=90
    )


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


def _hook_log(state_dir: Path) -> str:
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    codex_bin: Path, fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the Stop hook captures it, the worker turns it
    into a claim; session 2 in B asks, and the model request carries memevo's digest."""
    settings = install_codex_hooks(user_home, home)
    for event in EVENTS:
        assert hook_commands(settings, event) == [HOOK_COMMAND], (event, settings)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    model_reply = Reply.of_claims([{"kind": "fact", "content": CLAIM, "searchTerms": ["staging db port"]}])
    with (
        FakeModelProcess(tmp_path, [model_reply], default="empty") as model,
        MemevoWorker(memevo_env(home, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(fake, codex_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.last_message == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = fake.main_requests()  # the Stop hook printed nothing: Codex did not continue
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        [source] = wait_until(lambda: sources(home), 10, "the Stop hook's capture", describe=lambda: _hook_log(home))
        assert source["source_type"] == "user_statement", source
        assert source["origin"] == str(repo_a.resolve()), source
        assert (source["body"]["text"], source["body"]["session_id"]) == (STATEMENT, first.session_id), source
        assert source["body"]["agent"] == "codex"

        def active_claim() -> list[dict[str, Any]]:
            return [c for c in claims(home, "active") if c["content"] == CLAIM]

        [claim] = wait_until(
            active_claim,
            CONSOLIDATION_WAIT,
            "the worker to consolidate the statement",
            describe=lambda: f"sources: {sources(home)}\nclaims: {claims(home)}\n{worker.output()}",
        )
        assert claim["origin"] == str(repo_a.resolve()) and claim["source_id"] == source["id"]
        [consolidation] = model.requests()
        assert "staging database listens on port 5433" in json.dumps(consolidation["messages"])

    fake.enqueue("It listens on port 5433.")
    second = runner_in(fake, codex_bin, user_home, repo_b, home).run(QUESTION)

    assert second.last_message == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = fake.main_requests()  # one model request per plain turn
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
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


def test_a_tool_turn_and_uninstall(
    codex_bin: Path, fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A known fact is recalled in a turn that runs a shell command (the fake's ``exec_command``,
    whose output goes back to the model); after ``memevo uninstall codex`` the same question
    gets no digest and the user's own hook stays."""
    runner = runner_in(fake, codex_bin, user_home, tmp_path / "repo", home)
    own = {"type": "command", "command": "true", "timeout": 5}
    runner.write_hooks({"hooks": {"UserPromptSubmit": [{"hooks": [own]}]}})
    install_codex_hooks(user_home, home)
    seed = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "seed",
        "cwd": str(tmp_path),
        "summary": f"Fact: {CLAIM}",
    }  # a labelled fact becomes a claim at once, no worker needed
    seeded = run_memevo("hook", "compaction", input=json.dumps(seed), env=memevo_env(home))
    assert seeded.returncode == 0 and [c["content"] for c in claims(home, "active")] == [CLAIM], seeded.stderr
    fake.enqueue(CodexReply.exec_command("echo port-check"), "5433, per memevo.", "I do not know.")

    before = runner.run(QUESTION)
    settings = install_codex_hooks(user_home, home, "uninstall", "codex")
    after = runner.run(QUESTION)

    assert before.last_message == "5433, per memevo." and after.last_message == "I do not know.", after.describe()
    asked, with_output, without = fake.main_requests()
    assert DIGEST_OPEN in turn_text(asked) and CLAIM in turn_text(asked)
    outputs = [item for item in with_output.input if item.get("type") == "function_call_output"]
    assert len(outputs) == 1 and "port-check" in outputs[0]["output"]  # the shell ran; its output came back
    assert digest_message(with_output) is not None  # the digest stays in the turn's history
    assert DIGEST_OPEN not in request_text(without, include_system=True)
    assert hook_commands(settings, "UserPromptSubmit") == ["true"]
    assert not any(
        str(MEMEVO_BIN) in str(c) for event in settings.get("hooks", {}) for c in hook_commands(settings, event)
    ), settings
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)
