"""The printed tool definition (`memevo tool-definition`) answers what memory_recall answers,
for a query that starts with "-" too."""

from __future__ import annotations

import json
from pathlib import Path

from cli.mcp.tools import MAX_QUERY_CHARS, TOOLS
from memory_core.recall.service import MAX_QUERY_CHARS as RECALL_LIMIT
from tests.mcp.support import PORT_CLAIM, seed


def test_printed_command_takes_a_dashed_query_and_matches_the_mcp_tool(home: Path, cli_run) -> None:
    [claim_id] = seed(home, PORT_CLAIM)
    tool = json.loads(cli_run("tool-definition").output)
    [mcp_tool] = [t for t in TOOLS if t["name"] == tool["name"]]
    assert (
        tool["input_schema"]["properties"]["query"]["maxLength"]
        == mcp_tool["inputSchema"]["properties"]["query"]["maxLength"]
    )
    assert MAX_QUERY_CHARS == RECALL_LIMIT
    argv = [part.replace("{query}", "--staging database port") for part in tool["command"]]
    out = json.loads(cli_run(*argv[1:]).output)
    assert out["query"] == "--staging database port" and [c["id"] for c in out["claims"]] == [claim_id]
