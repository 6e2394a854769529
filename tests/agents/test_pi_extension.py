"""memevo's Pi extension (``memevo.ts``) inside the real Pi CLI, with a stand-in for memevo.

The extension is rendered by :func:`cli.install.pi.render` with a launcher that runs a small
Python script instead of ``memevo``: it records each payload and answers the recall call as
the test wants (a digest, a hang, nothing), so what Pi does around the extension can be seen
directly: what it sends, what it injects, how long a prompt waits, and that nothing breaks
when memevo is gone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.install import pi
from tests.agents.helpers import records as recorded_lines
from tests.support.fake_openai_chat import ChatReply, FakeOpenAIChatServer, turn_text, user_texts
from tests.support.pi_cli import PiRunner

pytestmark = pytest.mark.slow

STAND_IN = """\
import json, os, sys, time
payload = json.loads(sys.stdin.read())
with open(os.environ["RECORD_TO"], "a", encoding="utf-8") as out:
    out.write(json.dumps({"argv": sys.argv[1:], "payload": payload}) + "\\n")
if payload["hook_event_name"] == "before_agent_start":
    mode = os.environ.get("RECALL", "digest")
    if mode == "hang":
        time.sleep(20)
    elif mode == "digest":
        print("<memevo-recall>\\nSTAND-IN DIGEST for " + payload["event"]["prompt"] + "\\n</memevo-recall>")
"""


def install_stand_in(tmp_path: Path, launcher: list[str] | None = None) -> tuple[Path, Path]:
    """The extension in ``tmp/home/.pi/agent/extensions`` running the stand-in; its record file."""
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN, encoding="utf-8")
    extension = tmp_path / "home" / ".pi" / "agent" / "extensions" / "memevo.ts"
    extension.parent.mkdir(parents=True)
    extension.write_text(pi.render(launcher or [sys.executable, str(script)]), encoding="utf-8")
    return extension, tmp_path / "record.jsonl"


def records(path: Path) -> list[dict[str, Any]]:
    """The payloads the stand-in recorded."""
    return [line["payload"] for line in recorded_lines(path)]


def runner(pi_fake: FakeOpenAIChatServer, pi_bin: Path, tmp_path: Path, record: Path, recall: str) -> PiRunner:
    return PiRunner(
        pi_fake.base_url,
        home=tmp_path / "home",
        cwd=tmp_path / "project",
        binary=pi_bin,
        env={"RECORD_TO": str(record), "RECALL": recall},
    )


def test_payloads_carry_the_session_even_after_pi_tore_it_down_and_the_digest_is_injected(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, tmp_path: Path
) -> None:
    _, record = install_stand_in(tmp_path)
    pi_runner = runner(pi_fake, pi_bin, tmp_path, record, "digest")
    pi_fake.enqueue("First.", ChatReply.tool_call("bash", {"command": "echo hi-from-tool"}), "Tool done.")

    first = pi_runner.run("hello first")
    second = pi_runner.run("run a tool", continue_session=True)

    assert first.session_id == second.session_id
    sent = records(record)
    names = sorted(p["hook_event_name"] for p in sent)
    assert names == sorted(["session_start", "before_agent_start", "agent_end", "session_shutdown"] * 2), names
    project = str((tmp_path / "project").resolve())
    for payload in sent:
        # agent_end often comes after session_shutdown, when ctx can no longer be read:
        # the extension sends what it remembered.
        assert payload["session_id"] == first.session_id, payload
        assert payload["cwd"] == project and payload["model"] == "fake-model", payload
        assert payload["session_file"] and Path(payload["session_file"]).is_file(), payload
        assert payload["event"]["type"] == payload["hook_event_name"]
    start = next(p for p in sent if p["hook_event_name"] == "before_agent_start")
    assert set(start["event"]) == {"type", "prompt"}  # no system prompt: memevo does not need it
    [tool_end] = [p for p in sent if p["hook_event_name"] == "agent_end" and "hi-from-tool" in json.dumps(p)]
    roles = [m["role"] for m in tool_end["event"]["messages"]]
    assert roles == ["user", "custom", "assistant", "toolResult", "assistant"], roles
    assert tool_end["event"]["messages"][1]["customType"] == "memevo-recall"
    assert all("usage" not in m and "details" not in m for m in tool_end["event"]["messages"])
    # The digest is a user-role message right after the prompt, in every model call of the run.
    for request, prompt in zip(pi_fake.completion_requests(), ["hello first", "run a tool", "run a tool"], strict=True):
        texts = user_texts(request)
        position = texts.index(prompt)
        assert texts[position + 1].startswith("<memevo-recall>") and f"DIGEST for {prompt}" in texts[position + 1]
    assert "STAND-IN DIGEST for hello first" in turn_text(pi_fake.completion_requests()[0])


def test_a_hanging_recall_delays_the_prompt_by_the_limit_only(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, tmp_path: Path
) -> None:
    _, record = install_stand_in(tmp_path)
    pi_fake.enqueue("Answered anyway.")

    run = runner(pi_fake, pi_bin, tmp_path, record, "hang").run("is anyone there?")

    assert run.result == "Answered anyway.", run.describe()
    assert 3.0 <= run.duration < 12.0, run.duration  # the 3 s recall limit, not the 20 s hang
    [request] = pi_fake.completion_requests()
    assert user_texts(request) == ["is anyone there?"]
    assert "agent_end" in [p["hook_event_name"] for p in records(record)]  # the turn was still sent


def test_a_missing_memevo_never_breaks_pi(pi_bin: Path, pi_fake: FakeOpenAIChatServer, tmp_path: Path) -> None:
    install_stand_in(tmp_path, launcher=[str(tmp_path / "gone" / "memevo")])
    pi_fake.enqueue("Fine without memevo.")

    run = runner(pi_fake, pi_bin, tmp_path, tmp_path / "record.jsonl", "digest").run("hello")

    assert (run.returncode, run.result) == (0, "Fine without memevo."), run.describe()
    assert "memevo" not in run.stderr, run.stderr
    [request] = pi_fake.completion_requests()
    assert user_texts(request) == ["hello"]
