"""memevo's MCP server in the real Codex CLI: `memevo install codex` registers it in
``config.toml``, `codex mcp list` shows it enabled, and a turn whose model calls memevo's
``memory_recall`` gets the stored claim back as the call's output."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.agents.helpers import CLAIM, memevo_as_user, seed_claim
from tests.agents.mcp_support import agent_cli, runner_elsewhere, server_entry
from tests.mcp.support import store_state
from tests.support.codex_cli import CodexRunner
from tests.support.fake_codex import FakeCodexServer, request_text
from tests.support.fake_codex import Reply as CodexReply
from tests.support.memevo_worker import MEMEVO_BIN

pytestmark = pytest.mark.slow


def test_install_registers_the_server_and_a_turn_recalls_through_it(
    codex_bin: Path, codex_fake: FakeCodexServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    seed_claim(home, tmp_path)
    runner = runner_elsewhere(CodexRunner, codex_fake.base_url, codex_bin, user_home, tmp_path)
    memevo_as_user(user_home, home, "install", "codex")
    config = tomllib.loads(runner.config_path.read_text())
    assert config["mcp_servers"]["memevo"] == server_entry(home)
    assert config["model_provider"] == "fake"  # the rest of the file is as it was
    before = store_state(home)

    listed = agent_cli(runner, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    [row] = [line.split() for line in listed.stdout.splitlines() if line.startswith("memevo ")]
    assert row[:3] == ["memevo", str(MEMEVO_BIN), "mcp"] and "enabled" in row, listed.stdout

    codex_fake.enqueue(
        CodexReply.mcp_call("memevo", "memory_recall", {"query": "staging database port"}),
        "It listens on port 5433, per memevo.",
    )
    run = runner.run("Look up the staging database port in memevo.")

    assert run.last_message == "It listens on port 5433, per memevo.", run.describe()
    first, second = codex_fake.main_requests()
    # Codex offers an MCP server's tools as one namespace of functions.
    [namespace] = [tool for tool in first.body["tools"] if tool.get("name") == "mcp__memevo"]
    assert sorted(t["name"] for t in namespace["tools"]) == ["memory_explain", "memory_get", "memory_recall"]
    [output] = [item for item in second.input if item.get("type") == "function_call_output"]
    text = json.dumps(output["output"], ensure_ascii=False)
    assert CLAIM in text and "<memevo-recall>" in text, text
    assert CLAIM not in request_text(first)  # only the tool brought it
    assert store_state(home) == before  # the lookup wrote nothing
