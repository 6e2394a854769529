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
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.agent_clis import ClaudeRunner, command_line, hook_settings, require_claude
from tests.support.fake_anthropic import FakeAnthropicServer, request_text, turn_text
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
HOOK_COMMAND = f"{MEMEVO_BIN} hook --agent claude-code"
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0

RECORD_HOOK = """\
import json, sys
payload = json.loads(sys.stdin.read())
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps(payload) + "\\n")
"""


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return require_claude()


@pytest.fixture
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """The throwaway HOME every ``claude`` run and ``memevo install`` use."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def install_user_hooks(user_home: Path, state_dir: Path) -> dict[str, Any]:
    """``memevo install claude-code --scope user`` into ``user_home``; the written settings."""
    env = memevo_env(state_dir, home=user_home)
    env.pop("CLAUDE_CONFIG_DIR", None)
    done = run_memevo("install", "claude-code", "--scope", "user", env=env, cwd=user_home)
    assert done.returncode == 0, f"memevo install failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    settings = user_settings(user_home)
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PostCompact"):
        assert hook_commands(settings, event).count(HOOK_COMMAND) == 1, (event, settings)
    return settings


def user_settings(user_home: Path) -> dict[str, Any]:
    return json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))


def hook_commands(settings: dict[str, Any], event: str) -> list[str]:
    """Every command hook of ``event`` in a settings object."""
    return [h.get("command") for group in settings.get("hooks", {}).get(event, []) for h in group.get("hooks", [])]


def runner_in(fake: FakeAnthropicServer, claude_bin: Path, user_home: Path, cwd: Path, state_dir: Path) -> ClaudeRunner:
    """A ``claude`` runner in ``cwd`` whose hooks get ``MEMEVO_HOME=state_dir``."""
    return ClaudeRunner(
        fake.base_url, home=user_home, cwd=cwd, binary=claude_bin, env={"MEMEVO_HOME": str(state_dir)}, timeout=60
    )


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _hook_log(state_dir: Path) -> str:
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def test_statement_remembered_in_one_session_is_recalled_in_a_fresh_session_elsewhere(
    claude_bin: Path, fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Session 1 in A says "remember that …"; the Stop hook captures it, the worker turns it
    into a claim; session 2 in B asks, and the model request carries memevo's digest."""
    install_user_hooks(user_home, home)
    repo_a, repo_b = tmp_path / "repo-a", tmp_path / "repo-b"
    model_reply = Reply.of_claims([{"kind": "fact", "content": CLAIM, "searchTerms": ["staging db port"]}])
    with (
        FakeModelProcess(tmp_path, [model_reply], default="empty") as model,
        MemevoWorker(memevo_env(home, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        fake.enqueue("Noted: the staging database listens on port 5433.")
        first = runner_in(fake, claude_bin, user_home, repo_a, home).run(STATEMENT)

        assert first.result == "Noted: the staging database listens on port 5433.", first.describe()
        [request_1] = fake.main_requests()  # the Stop hook printed nothing: Claude did not continue
        assert DIGEST_OPEN not in request_text(request_1, include_system=True)  # nothing known yet
        [source] = wait_until(lambda: sources(home), 10, "the Stop hook's capture", describe=lambda: _hook_log(home))
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
        assert (claim.get("evidence") or {}).get("basis") == "user_statement", claim
        [consolidation] = model.requests()
        assert "staging database listens on port 5433" in json.dumps(consolidation["messages"])

    fake.enqueue("It listens on port 5433.")
    second = runner_in(fake, claude_bin, user_home, repo_b, home).run(QUESTION)

    assert second.result == "It listens on port 5433.", second.describe()
    assert second.session_id != first.session_id
    request_1, request_2 = fake.main_requests()  # one model request per plain turn
    beside_prompt = turn_text(request_2)
    assert QUESTION in beside_prompt
    assert DIGEST_OPEN in beside_prompt, f"no memevo digest beside the prompt:\n{beside_prompt[-3000:]}"
    digest = beside_prompt[beside_prompt.index(DIGEST_OPEN) :]
    assert CLAIM in digest and claim["id"] in digest, digest[:3000]
    assert "Remember that" not in request_text(request_2), "session 2 must not see session 1's conversation"
    # The question is recall, not something to learn: still exactly one source.
    assert [s["id"] for s in sources(home)] == [source["id"]]
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


def test_compaction_summary_is_captured_once(
    claude_bin: Path, fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """``/compact`` fires both PostCompact and SessionStart(compact); one ``summary`` source."""
    install_user_hooks(user_home, home)
    project = tmp_path / "repo"
    runner = runner_in(fake, claude_bin, user_home, project, home)
    # A project-level recorder beside memevo's user-level hooks shows that both events fired.
    recorder = tmp_path / "record.py"
    recorder.write_text(RECORD_HOOK, encoding="utf-8")
    fired = tmp_path / "fired.jsonl"
    record = command_line(sys.executable, recorder, fired)
    runner.write_project_settings(hook_settings({"SessionStart": record, "PostCompact": record}))
    summary = (
        "<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: move the billing service "
        "to Postgres 16 (SUMMARY-MARKER-77).\n</summary>"
    )
    fake.enqueue("We will move billing to Postgres 16.")
    fake.enqueue_compact_summary(summary)

    first = runner.run("We are moving the billing service to Postgres 16.")
    compacted = runner.run("/compact", continue_session=True)

    assert compacted.session_id == first.session_id, compacted.describe()
    assert len(fake.compact_requests()) == 1
    assert len(fake.main_requests()) == 1
    events = [(r["hook_event_name"], r.get("source")) for r in _records(fired)]
    assert ("PostCompact", None) in events and ("SessionStart", "compact") in events, events
    summaries = [s for s in sources(home) if s["source_type"] == "summary"]
    assert len(summaries) == 1, (summaries, _hook_log(home))
    assert "SUMMARY-MARKER-77" in json.dumps(summaries[0]["body"])
    assert not (home / "logs" / "hooks.log").exists(), _hook_log(home)


@pytest.mark.parametrize("layout", ["home_is_a_file", "home_under_a_file"])
def test_unusable_state_dir_leaves_the_turn_working_and_injects_nothing(
    layout: str, claude_bin: Path, fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """A ``MEMEVO_HOME`` that cannot be a directory (tests run as root, so chmod 000 would
    not block reads): every hook fails open, the turn ends normally with one model request."""
    install_user_hooks(user_home, home)
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    broken = blocker if layout == "home_is_a_file" else blocker / "memevo"
    runner = runner_in(fake, claude_bin, user_home, tmp_path / "repo", broken)
    fake.enqueue("Answer despite memevo.", "Second answer despite memevo.")

    first = runner.run(STATEMENT)
    second = runner.run(QUESTION, continue_session=True)

    assert (first.returncode, first.result) == (0, "Answer despite memevo."), first.describe()
    assert (second.returncode, second.result) == (0, "Second answer despite memevo."), second.describe()
    assert len(fake.main_requests()) == 2  # no Stop hook made Claude continue
    for request in fake.main_requests():
        text = request_text(request, include_system=True)
        assert DIGEST_OPEN not in text and "additionalContext" not in text and "hookSpecificOutput" not in text
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    # No silent fallback to another state dir (the default lies under the throwaway HOME).
    assert not (user_home / ".local" / "share" / "memevo").exists()
    assert not home.exists()


def test_uninstall_disconnects_memevo_and_keeps_other_hooks(
    claude_bin: Path, fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    """Install twice (idempotent) beside a hook of the user's own; recall works; after
    ``memevo uninstall claude-code`` the same question gets no digest, the user's hook stays."""
    recorder = tmp_path / "record.py"
    recorder.write_text(RECORD_HOOK, encoding="utf-8")
    prompts = tmp_path / "prompts.jsonl"
    own_hook = command_line(sys.executable, recorder, prompts)
    runner = runner_in(fake, claude_bin, user_home, tmp_path / "repo", home)
    runner.write_user_settings(hook_settings({"UserPromptSubmit": own_hook}))
    install_user_hooks(user_home, home)
    install_user_hooks(user_home, home)
    assert hook_commands(user_settings(user_home), "UserPromptSubmit").count(own_hook) == 1
    # A labelled fact in a generic compaction summary becomes a claim at once, no worker needed.
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
    done = run_memevo(
        "uninstall", "claude-code", "--scope", "user", env=memevo_env(home, home=user_home), cwd=user_home
    )
    assert done.returncode == 0, f"memevo uninstall failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    after = runner.run(QUESTION)

    assert before.result == "5433, per memevo." and after.result == "I do not know.", after.describe()
    with_memevo, without = fake.main_requests()
    assert DIGEST_OPEN in turn_text(with_memevo) and CLAIM in turn_text(with_memevo)
    assert DIGEST_OPEN not in request_text(without, include_system=True)
    settings = user_settings(user_home)
    everything = [c for event in settings.get("hooks", {}) for c in hook_commands(settings, event)]
    assert not any(str(MEMEVO_BIN) in str(c) for c in everything), settings
    assert hook_commands(settings, "UserPromptSubmit") == [own_hook]
    assert [r["prompt"] for r in _records(prompts)] == [QUESTION, QUESTION]
