"""Smoke test: the real Codex CLI, headless, against the loopback fake Responses API.

It pins down what memevo's Codex hooks rely on (Codex 0.169.1): the fake's reply reaches
``codex exec``; a UserPromptSubmit hook's ``hookSpecificOutput`` reaches the model as a
developer message right after the prompt, while output with any key Codex does not know
(inside the envelope or beside it) fails that hook and injects nothing; a Stop hook's
output (plain text here) fails the hook and does not continue the turn; ``resume --last``
keeps the session and its rollout; and the payloads carry what the adapter reads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.codex_cli import CodexRunner, command_line, hook_settings, require_codex
from tests.support.fake_codex import FakeCodexServer, Reply, turn_text

pytestmark = pytest.mark.slow

RECORD = """\
import json, sys
with open(sys.argv[1], "a") as out:
    out.write(json.dumps(json.load(sys.stdin)) + "\\n")
"""
# Prints the envelope with argv[1] as the context; argv[2] adds keys inside it ("inner") or beside it ("top").
CONTEXT = """\
import json, sys
sys.stdin.read()
extra = json.loads(sys.argv[2])
envelope = {"hookEventName": "UserPromptSubmit", "additionalContext": sys.argv[1], **extra.get("inner", {})}
print(json.dumps({"hookSpecificOutput": envelope, **extra.get("top", {})}))
"""
SAY = "import sys\nsys.stdin.read()\nprint(sys.argv[1])\n"


def test_what_memevo_relies_on(tmp_path: Path) -> None:
    codex = require_codex()
    scripts = {}
    for name, text in (("record", RECORD), ("context", CONTEXT), ("say", SAY)):
        scripts[name] = tmp_path / f"{name}.py"
        scripts[name].write_text(text, encoding="utf-8")
    fired = tmp_path / "fired.jsonl"

    def context(text: str, extra: dict[str, object]) -> str:
        return command_line(sys.executable, scripts["context"], text, json.dumps(extra))

    record = command_line(sys.executable, scripts["record"], fired)
    hooks = hook_settings(
        {
            "SessionStart": record,
            "PreToolUse": record,
            "PostToolUse": record,
            "SessionEnd": record,
            "UserPromptSubmit": [
                record,
                context("GOOD-CONTEXT", {}),
                context("INNER-KEY", {"inner": {"x": 1}}),
                context("TOP-KEY", {"top": {"memevo": 1}}),
            ],
            "Stop": [record, command_line(sys.executable, scripts["say"], "plain text from a Stop hook")],
        },
        timeout=10,
    )
    with FakeCodexServer() as fake:
        runner = CodexRunner(fake.base_url, home=tmp_path / "home", cwd=tmp_path / "project", binary=codex)
        runner.write_hooks(hooks)
        fake.enqueue("First answer.", Reply.exec_command("echo hi-from-tool"), "Second answer.")
        first = runner.run("first prompt")
        second = runner.run("second prompt", resume=True)

        assert (first.last_message, second.last_message) == ("First answer.", "Second answer."), second.describe()
        assert first.session_id and first.session_id == second.session_id
        asked, tool_call, continued = fake.main_requests()  # no Stop output continued a turn
        assert turn_text(asked) == "first prompt\nGOOD-CONTEXT"
        assert turn_text(tool_call) == "second prompt\nGOOD-CONTEXT"
        for request in fake.main_requests():
            assert "INNER-KEY" not in json.dumps(request.body) and "TOP-KEY" not in json.dumps(request.body)
        assert "hi-from-tool" in turn_text(continued)  # the function call's output went back
        assert second.stderr.count("hook: UserPromptSubmit Failed") == 2
        assert "hook: Stop Failed" in second.stderr
        [rollout] = runner.sessions()

    payloads = [json.loads(line) for line in fired.read_text(encoding="utf-8").splitlines()]
    assert [p["hook_event_name"] for p in payloads] == [
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd",
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ]
    assert {p["session_id"] for p in payloads} == {first.session_id}
    assert {p["transcript_path"] for p in payloads} == {str(rollout)}
    assert [p["source"] for p in payloads if p["hook_event_name"] == "SessionStart"] == ["startup", "resume"]
    prompt, stop = (
        next(p for p in payloads[5:] if p["hook_event_name"] == name) for name in ("UserPromptSubmit", "Stop")
    )
    assert prompt["turn_id"] == stop["turn_id"] and "prompt_id" not in prompt
    assert stop["last_assistant_message"] == "Second answer." and stop["stop_hook_active"] is False
    post = next(p for p in payloads if p["hook_event_name"] == "PostToolUse")
    assert (post["tool_name"], post["tool_input"], post["tool_response"]) == (
        "Bash",
        {"command": "echo hi-from-tool"},
        "hi-from-tool\n",
    )
