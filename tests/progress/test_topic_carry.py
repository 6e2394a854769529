"""Follow-up work that names no topic (issue 30, item 2): "commit the login fix", then "now
push it" in the same session. The second request carries the first one's topic, as recall
carries a follow-up's subject, so the project state the commit turn updated is the one the
push turn updates too. Real ``memevo hook`` processes (the generic protocol), both backends,
English and Chinese."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import canonical_origin
from memory_core.capture.learning_log import read_entries
from memory_core.capture.work.topic_carry import carried_topic
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.hooks.support import hook_process
from tests.support.hook_gateway import gateway_for

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def gateway(home: Path, backend: str, tmp_path: Path) -> Iterator[None]:
    with gateway_for(home, backend, tmp_path / "serve.log"):
        yield


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    checkout = tmp_path / "webapp"
    (checkout / ".git").mkdir(parents=True)
    return checkout


def state(home: Path, repo: Path, content: str) -> str:
    with Store.open(home) as store:
        claim = make_memory(content, origin=canonical_origin(str(repo)), kind="project_state", at=clock.now() - 3600)
        seed(store, claim)
    return claim.id


def turn(repo: Path, session: str, request: str, command: str, output: str, n: int) -> None:
    payload = {
        "schema": "memevo.hook/v1",
        "session_id": session,
        "cwd": str(repo),
        "user_messages": [request],
        "operations": [{"tool": "Bash", "input": command, "output": output, "call_id": f"c{n}", "result_id": f"c{n}"}],
        "final_message": "Done.",
    }
    result = hook_process(json.dumps(payload), "turn_end")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), result.stderr


def progress_decision(home: Path) -> dict:
    [decision] = [d for d in read_entries(home, 1)[0]["decisions"] if d["source_type"] == "progress"]
    return decision


@pytest.mark.parametrize(
    ("state_text", "other_text", "first", "then"),
    [
        (
            "login fix: committed locally, not pushed yet",
            "billing export: not started",
            "commit the login fix",
            "now push it",
        ),
        ("登录修复：已在本地提交，尚未推送", "账单导出：尚未开始", "提交登录修复", "现在推送一下"),
    ],
    ids=["en", "zh"],
)
def test_a_push_after_a_commit_updates_the_state_the_commit_did(
    home: Path, repo: Path, state_text: str, other_text: str, first: str, then: str
) -> None:
    target = state(home, repo, state_text)
    state(home, repo, other_text)
    turn(repo, "s1", first, f'git -C {repo} commit -am "Fix login"', "[main 1a2b3c4] Fix login", 1)
    assert progress_decision(home)["targets"] == [target]
    turn(
        repo, "s1", then, f"git -C {repo} push origin main", "To github.com:me/webapp.git\n   1a2b3c4  main -> main", 2
    )
    decision = progress_decision(home)
    assert decision["reason"] == "captured" and decision["targets"] == [target]


def test_another_session_or_a_new_topic_carries_nothing(home: Path, repo: Path) -> None:
    state(home, repo, "login fix: committed locally, not pushed yet")
    turn(repo, "s1", "commit the login fix", f'git -C {repo} commit -am "Fix login"', "[main 1a2b3c4] Fix login", 1)
    turn(repo, "s2", "now push it", f"git -C {repo} push origin main", "main -> main", 2)
    assert progress_decision(home)["reason"] == "no_target"  # another session: nothing to carry
    turn(repo, "s1", "new topic: push it", f"git -C {repo} push origin main", "main -> main", 3)
    assert progress_decision(home)["reason"] == "no_target"


@pytest.mark.parametrize(
    ("request_text", "carried"),
    [
        ("now push it", "commit the login fix"),
        ("push", "commit the login fix"),
        ("继续", "commit the login fix"),
        ("now push the billing export", None),
        ("new topic, push everything", None),
    ],
)
def test_which_requests_carry_the_topic(request_text: str, carried: str | None) -> None:
    assert carried_topic(request_text, [request_text], ["commit the login fix"]) == carried
