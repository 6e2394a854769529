"""End to end with the real Claude Code CLI: a work turn moves a remembered project state on.

A real git repository with an unreachable remote; memevo remembers "the parser fix is not
committed yet" for it. In one headless ``claude`` turn the scripted Anthropic fake runs
``git commit -am …`` (succeeds) and ``git push`` (fails) through Claude Code's real Bash
tool. The Stop hook (installed by ``memevo install claude-code``) reads the turn from the
transcript and captures one ``progress`` source nominating that state; ``memevo worker``
consolidates it through a loopback fake model that answers from what the prompt shows (the
nominated id, the commit and push results), and the state ends up saying: committed, not
pushed, as a ``tool_observation``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memory_core.store.engines.database import Store
from tests.agents.helpers import agent_runner, git, hook_log, make_widget_repo, memevo_as_user
from tests.factories import make_memory, seed
from tests.support.agent_clis import ClaudeRunner
from tests.support.fake_anthropic import FakeAnthropicServer, Reply
from tests.support.fake_model import FakeModelServer
from tests.support.memevo_worker import MemevoWorker, claims, memevo_env, run_memevo, sources, wait_until

pytestmark = pytest.mark.slow

PENDING = "Widget repository: the parser fix is not committed yet."
REQUEST = "Commit the parser fix in the widget repository and push it."
WAIT = 45.0


def progress_answer(request: dict[str, Any]) -> str:
    """The consolidation model's answer, computed from what the prompt shows it: the nominated
    id, and whether the observations show a successful commit and a failed push."""
    user = next((m["content"] for m in reversed(request.get("messages", [])) if m.get("role") == "user"), "")
    nominated = re.search(r"^Nominated ids: ([0-9a-f]{24})", user, re.MULTILINE)
    if not nominated:
        return '{"claims": []}'
    committed = re.search(r"^\[\d+\] commit, ok$", user, re.MULTILINE) is not None
    push_failed = re.search(r"^\[\d+\] push, error$", user, re.MULTILINE) is not None
    if not (committed and push_failed):
        return '{"claims": []}'
    content = "Widget repository: the parser fix is committed locally but not pushed (the push to origin failed)."
    return json.dumps({"claims": [{"kind": "project_state", "content": content, "replaces": nominated.group(1)}]})


def test_commit_then_failed_push_leaves_committed_not_pushed(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    repo = make_widget_repo(tmp_path / "widget")
    origin = str(repo.resolve())
    pending = make_memory(PENDING, origin=origin, kind="project_state")
    with Store.open(home) as store:
        seed(store, pending)
    memevo_as_user(user_home, home, "install", "claude-code", "--scope", "user")
    env = memevo_env(home, home=user_home)

    claude_fake.enqueue(
        Reply.bash('git commit -am "Fix the parser"'),
        Reply.bash("git push origin main"),
        "Committed the parser fix; the push failed because the remote is unreachable.",
    )
    with (
        FakeModelServer(default=progress_answer) as model,
        MemevoWorker(env, model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        runner = agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, repo, home, timeout=90)
        run = runner.run(REQUEST)
        assert "push failed" in run.result, run.describe()
        assert "Fix the parser" in git(repo, "log", "-1", "--format=%s")  # the commit really happened
        assert git(repo, "status", "--porcelain") == ""

        [source] = wait_until(
            lambda: [s for s in sources(home) if s["source_type"] == "progress"],
            15,
            "the Stop hook's progress capture",
            describe=lambda: hook_log(home),
        )
        assert source["origin"] == origin
        assert source["body"]["target_ids"] == [pending.id]
        text = source["body"]["text"]
        assert "completion: finished" in text
        assert re.search(r"^\[\d+\] commit, ok$", text, re.MULTILINE), text
        assert re.search(r"^\[\d+\] push, error$", text, re.MULTILINE), text
        assert "nonexistent" in text  # the push's failure output is kept

        def updated() -> list[dict[str, Any]]:
            return [c for c in claims(home, "active") if c["kind"] == "project_state" and c["id"] != pending.id]

        [state] = wait_until(
            updated, WAIT, "the worker's progress pass", describe=lambda: f"sources: {sources(home)}\n{worker.output()}"
        )
    assert "committed" in state["content"] and "not pushed" in state["content"]
    assert state["replaces"] == pending.id and state["origin"] == origin
    assert state["evidence"]["basis"] == "tool_observation" and state["evidence"]["source_id"] == source["id"]
    [old] = [c for c in claims(home) if c["id"] == pending.id]
    assert old["status"] == "superseded"
    [consolidation] = model.requests
    assert f"Nominated ids: {pending.id}" in consolidation["messages"][-1]["content"]

    learning = json.loads(run_memevo("learning", "--json", env=env).stdout)
    # the worker's model call is a line of the log too (kind model_call); one turn was logged
    [turn] = [entry for entry in learning["turns"] if entry.get("kind") != "model_call"]
    progress = {d["source_type"]: d for d in turn["decisions"]}["progress"]
    assert progress["reason"] == "captured" and progress["source_id"] == source["id"]
