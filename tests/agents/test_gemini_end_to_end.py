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
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.store.database import Store
from tests.factories import make_memory, seed
from tests.support.fake_gemini import FakeGeminiServer, hook_contexts, request_text, turn_text
from tests.support.fake_gemini import Reply as GeminiReply
from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.gemini_cli import GeminiRunner, command_line, require_gemini
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
HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent gemini"
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0

RECORD_HOOK = """\
import json, sys
payload = json.loads(sys.stdin.read())
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps(payload) + "\\n")
"""


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return require_gemini()


@pytest.fixture
def fake() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """The throwaway HOME every ``gemini`` run and ``memevo install`` use."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def user_settings(user_home: Path) -> dict[str, Any]:
    return json.loads((user_home / ".gemini" / "settings.json").read_text(encoding="utf-8"))


def hook_commands(settings: dict[str, Any], event: str) -> list[str]:
    return [h.get("command") for group in settings.get("hooks", {}).get(event, []) for h in group.get("hooks", [])]


def install_user_hooks(user_home: Path, state_dir: Path) -> dict[str, Any]:
    """``memevo install gemini --scope user`` into ``user_home``; the written settings."""
    env = memevo_env(state_dir, home=user_home)
    env.pop("GEMINI_CLI_HOME", None)
    done = run_memevo("install", "gemini", "--scope", "user", env=env, cwd=user_home)
    assert done.returncode == 0, f"memevo install failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    settings = user_settings(user_home)
    for event in ("SessionStart", "BeforeAgent", "AfterAgent"):
        assert hook_commands(settings, event).count(HOOK_COMMAND) == 1, (event, settings)
    assert settings["hooksConfig"]["enabled"] is True
    return settings


def runner_in(fake: FakeGeminiServer, gemini_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> GeminiRunner:
    """A ``gemini`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return GeminiRunner(
        fake.base_url, home=user_home, cwd=cwd, binary=gemini_bin, env={"MEMEVO_HOME": str(state_dir)}, timeout=90
    )


def _hook_log(state_dir: Path) -> str:
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    gemini_bin: Path, fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the AfterAgent hook captures it, the worker
    turns it into a claim; session 2 in B asks, and the model request carries the digest."""
    install_user_hooks(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    model_reply = Reply.of_claims([{"kind": "fact", "content": CLAIM, "searchTerms": ["staging db port"]}])
    with (
        FakeModelProcess(tmp_path, [model_reply], default="empty") as model,
        MemevoWorker(memevo_env(home, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(fake, gemini_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.response == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = fake.main_requests()  # AfterAgent printed nothing: the agent did not go on
        assert hook_contexts(request_1) == []  # nothing known yet: BeforeAgent printed nothing
        [source] = wait_until(
            lambda: sources(home), 10, "the AfterAgent hook's capture", describe=lambda: _hook_log(home)
        )
        assert source["source_type"] == "user_statement", source
        assert source["origin"] == str(repo_a.resolve()), source
        assert (source["body"]["text"], source["body"]["session_id"]) == (STATEMENT, first.session_id), source
        assert source["body"]["agent"] == "gemini"

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
    second = runner_in(fake, gemini_bin, user_home, repo_b, home).run(QUESTION)

    assert second.response == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = fake.main_requests()  # one model request per plain turn
    assert QUESTION in turn_text(request_2)
    contexts = hook_contexts(request_2)
    assert len(contexts) == 1, f"{turn_text(request_2)[-2000:]}\n{_hook_log(home)}"
    context = contexts[0]
    assert context.startswith(DIGEST_OPEN), context
    assert CLAIM in context and claim["id"] in context, context[:3000]
    assert "&lt;memevo-recall&gt;" in turn_text(request_2)  # what the model really reads
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn: still exactly one source.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


def test_unusable_state_dir_leaves_the_turn_working_and_injects_nothing(
    gemini_bin: Path, fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory: every hook fails open, each turn ends
    normally with one model request and no injected context."""
    install_user_hooks(user_home, home)
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    runner = runner_in(fake, gemini_bin, user_home, tmp_path / "repo", blocker)
    fake.enqueue("Answer despite memevo.", "Second answer despite memevo.")

    first = runner.run(STATEMENT)
    second = runner.run(QUESTION, resume=True)

    assert (first.returncode, first.response) == (0, "Answer despite memevo."), first.describe()
    assert (second.returncode, second.response) == (0, "Second answer despite memevo."), second.describe()
    assert second.session_id == first.session_id
    assert len(fake.main_requests()) == 2
    for request in fake.main_requests():
        assert hook_contexts(request) == [] and "memevo-recall" not in request_text(request, include_system=True)
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    assert not (user_home / ".local" / "share" / "memevo").exists() and not home.exists()


def test_uninstall_disconnects_memevo_and_keeps_other_hooks(
    gemini_bin: Path, fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Install twice (idempotent) beside a hook of the user's own; recall works; after
    ``memevo uninstall gemini`` the same question gets no digest, the user's hook stays."""
    recorder = tmp_path / "record.py"
    recorder.write_text(RECORD_HOOK, encoding="utf-8")
    prompts = tmp_path / "prompts.jsonl"
    own_hook = command_line(sys.executable, recorder, prompts)
    runner = runner_in(fake, gemini_bin, user_home, tmp_path / "repo", home)
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
    seed = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "seed",
        "cwd": str(tmp_path),
        "summary": f"Fact: {CLAIM}",
    }
    seeded = run_memevo("hook", "compaction", input=json.dumps(seed), env=memevo_env(home))
    assert seeded.returncode == 0 and [c["content"] for c in claims(home, "active")] == [CLAIM], seeded.stderr
    fake.enqueue("5433, per memevo.", "I do not know.")

    before = runner.run(QUESTION)
    done = run_memevo("uninstall", "gemini", "--scope", "user", env=memevo_env(home, home=user_home), cwd=user_home)
    assert done.returncode == 0, f"memevo uninstall failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    after = runner.run(QUESTION)

    assert before.response == "5433, per memevo." and after.response == "I do not know.", after.describe()
    with_memevo, without = fake.main_requests()
    contexts = hook_contexts(with_memevo)
    assert len(contexts) == 1, f"{turn_text(with_memevo)[-2000:]}\n{_hook_log(home)}"
    assert DIGEST_OPEN in contexts[0] and CLAIM in contexts[0]
    assert hook_contexts(without) == []
    settings = user_settings(user_home)
    everything = [c for event in settings.get("hooks", {}) for c in hook_commands(settings, event)]
    assert not any(str(MEMEVO_BIN) in str(c) for c in everything), settings
    assert hook_commands(settings, "BeforeAgent") == [own_hook]
    assert settings["hooksConfig"]["enabled"] is True  # uninstall leaves the switch the user's hook needs
    assert [r["prompt"] for r in _records(prompts)] == [QUESTION, QUESTION]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_work_turn_reports_its_shell_calls_from_the_transcript(
    gemini_bin: Path, fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Gemini's real shell tool commits (ok) and pushes to an unreachable remote (exit code
    128): the AfterAgent hook reads both calls and their results from the chat transcript and
    captures one progress source for the remembered project state."""
    repo = tmp_path / "widget"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, timeout=30)
    for key, value in (("user.email", "dev@example.invalid"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(repo, "config", key, value)
    (repo / "parser.py").write_text("def parse(text):\n    return text.split()\n", encoding="utf-8")
    git(repo, "add", "parser.py")
    git(repo, "commit", "-q", "-m", "Start the parser")
    git(repo, "remote", "add", "origin", "file:///nonexistent/widget.git")
    (repo / "parser.py").write_text("def parse(text):\n    return text.strip().split()\n", encoding="utf-8")
    pending = make_memory(
        "Widget repository: the parser fix is not committed yet.", origin=str(repo.resolve()), kind="project_state"
    )
    with Store.open(home) as store:
        seed(store, pending)
    install_user_hooks(user_home, home)
    fake.enqueue(
        GeminiReply.shell('git commit -am "Fix the parser"'),
        GeminiReply.shell("git push origin main"),
        "Committed the parser fix; the push failed because the remote is unreachable.",
    )

    run = runner_in(fake, gemini_bin, user_home, repo, home).run(
        "Commit the parser fix in the widget repository and push it."
    )

    assert "push failed" in run.response, run.describe()
    assert "Fix the parser" in git(repo, "log", "-1", "--format=%s")  # the commit really happened
    assert len(fake.main_requests()) == 3  # two tool calls, then the reply; AfterAgent added nothing
    [source] = wait_until(
        lambda: [s for s in sources(home) if s["source_type"] == "progress"],
        10,
        "the AfterAgent hook's progress capture",
        describe=lambda: _hook_log(home),
    )
    assert source["body"]["target_ids"] == [pending.id] and source["body"]["agent"] == "gemini"
    text = source["body"]["text"]
    assert "completion: finished" in text
    assert re.search(r"^\[\d+\] commit, ok$", text, re.MULTILINE), text
    assert re.search(r"^\[\d+\] push, error$", text, re.MULTILINE), text
    assert "nonexistent" in text and "Committed the parser fix" in text
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)
