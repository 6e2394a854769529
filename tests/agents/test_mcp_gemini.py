"""memevo's MCP server in the real Gemini CLI: `memevo install gemini` registers it beside the
hooks in ``settings.json``, `gemini mcp list` shows it connected, and a turn whose model calls
memevo's ``memory_recall`` gets the stored claim back as the call's response."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import CLAIM, memevo_as_user, seed_claim
from tests.agents.mcp_support import agent_cli, runner_elsewhere, server_entry
from tests.mcp.support import store_state
from tests.support.fake_gemini import FakeGeminiServer, Reply, request_text
from tests.support.gemini_cli import GeminiRunner
from tests.support.memevo_worker import MEMEVO_BIN

pytestmark = pytest.mark.slow


def test_install_registers_a_connected_server_and_a_turn_recalls_through_it(
    gemini_bin: Path, gemini_fake: FakeGeminiServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    seed_claim(home, tmp_path)
    runner = runner_elsewhere(GeminiRunner, gemini_fake.base_url, gemini_bin, user_home, tmp_path)
    runner.ensure_base_settings()
    memevo_as_user(user_home, home, "install", "gemini")
    settings = json.loads(runner.user_settings_path.read_text())
    assert settings["mcpServers"]["memevo"] == server_entry(home)
    before = store_state(home)
    # The person trusts the project folder (Gemini CLI lists no servers in an untrusted one).
    trusted = {str(runner.cwd.resolve()): "TRUST_FOLDER"}
    (user_home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))

    listed = agent_cli(runner, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    out = listed.stdout + listed.stderr
    [line] = [line for line in out.splitlines() if "memevo:" in line]
    assert f"{MEMEVO_BIN} mcp" in line and "Connected" in line, out

    gemini_fake.enqueue(
        Reply.tool_call("mcp_memevo_memory_recall", {"query": "staging database port"}), "It listens on 5433."
    )
    run = runner.run("Look up the staging database port in memevo.")

    assert run.response == "It listens on 5433.", run.describe()
    first, second = gemini_fake.main_requests()
    names = {d["name"] for tool in first.body.get("tools", []) for d in tool.get("functionDeclarations", [])}
    assert {"mcp_memevo_memory_recall", "mcp_memevo_memory_get", "mcp_memevo_memory_explain"} <= names
    [response] = [
        part["functionResponse"] for part in second.body["contents"][-1]["parts"] if "functionResponse" in part
    ]
    text = json.dumps(response["response"], ensure_ascii=False)
    assert CLAIM in text and "<memevo-recall>" in text, text
    assert CLAIM not in request_text(first)  # only the tool brought it
    assert store_state(home) == before  # the lookup wrote nothing
