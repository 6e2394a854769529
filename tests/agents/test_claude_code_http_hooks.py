"""The real Claude Code CLI with memevo's http hooks: `memevo install claude-code --transport
http` into a throwaway HOME, `memevo serve` as its own process on a free loopback port, the
pinned ``claude`` headless against the loopback fake of the Messages API.

Recall reaches the model through the server, a Stop capture lands through it, and with the
server gone the turn still ends normally (a failing http hook never stops a turn).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import (
    CLAIM,
    DIGEST_OPEN,
    QUESTION,
    STATEMENT,
    agent_runner,
    assert_no_hook_errors,
    hook_commands,
    hook_log,
    memevo_as_user,
    seed_claim,
)
from tests.support.agent_clis import ClaudeRunner
from tests.support.fake_anthropic import FakeAnthropicServer, turn_text
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import MEMEVO_BIN, memevo_env, sources, wait_until

pytestmark = pytest.mark.slow

HTTP_EVENTS = ("UserPromptSubmit", "Stop", "StopFailure", "PostCompact", "SessionEnd")


def test_recall_and_capture_go_through_memevo_serve(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    seed_claim(home, tmp_path)
    with MemevoServe(memevo_env(home, home=user_home), log=tmp_path / "serve.log") as server:
        memevo_as_user(
            user_home,
            home,
            "install",
            "claude-code",
            "--scope",
            "user",
            "--transport",
            "http",
            "--port",
            str(server.port),
        )
        settings = json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))
        assert hook_commands(settings, "SessionStart") == [f"{MEMEVO_BIN} hook --agent claude-code"]
        for event in HTTP_EVENTS:
            [entry] = [h for group in settings["hooks"][event] for h in group["hooks"]]
            assert entry["type"] == "http" and entry["url"].startswith(f"http://127.0.0.1:{server.port}/"), entry
        assert settings["env"]["MEMEVO_HOOK_TOKEN"] == server.token
        runner = agent_runner(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, project, home, timeout=60)
        claude_fake.enqueue("5433, per memevo.", "Noted.")

        asked = runner.run(QUESTION)
        told = runner.run(STATEMENT, continue_session=True)

        assert asked.result == "5433, per memevo." and told.result == "Noted.", told.describe()
        recalled, captured = claude_fake.main_requests()  # no Stop answer made Claude continue
        assert DIGEST_OPEN in turn_text(recalled) and CLAIM in turn_text(recalled), turn_text(recalled)[-2000:]
        [source] = wait_until(
            lambda: [s for s in sources(home) if s["source_type"] == "user_statement"],
            10,
            "the Stop capture through memevo serve",
            describe=lambda: hook_log(home),
        )
        assert (source["body"]["text"], source["body"]["session_id"]) == (STATEMENT, told.session_id), source
        assert source["origin"] == str(project.resolve()) and STATEMENT in turn_text(captured)
        log = server.stop()
    assert "memevo serve: 4" not in log and "Traceback" not in log, log  # no request refused
    assert_no_hook_errors(home)

    # The server is gone: the hooks fail, the turn does not.
    claude_fake.enqueue("Answer without memevo.")
    alone = runner.run(QUESTION)
    assert (alone.returncode, alone.result) == (0, "Answer without memevo."), alone.describe()
    assert DIGEST_OPEN not in turn_text(claude_fake.main_requests()[-1])
