"""`memevo mcp` against the official MCP SDK's client (stdio_client + ClientSession).

The SDK is the reference implementation of the protocol: its client validates every
message it receives against the specification's schema, so a malformed answer fails here.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters  # the official SDK (the test extra)
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from mcp.types import LATEST_PROTOCOL_VERSION

from tests.mcp.support import PORT_CLAIM, SERVER_ARGV, seed, store_state
from tests.support.processes import REPO


def with_session(home: Path, body: Callable[[ClientSession, Any], Awaitable[Any]]) -> Any:
    """Start the server, initialize a session and run ``body(session, init_result)``."""

    async def run() -> Any:
        params = StdioServerParameters(
            command=SERVER_ARGV[0], args=SERVER_ARGV[1:], env=dict(os.environ), cwd=str(REPO)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await asyncio.wait_for(session.initialize(), 30)
            return await asyncio.wait_for(body(session, init), 60)

    return asyncio.run(run())


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_initialize_and_list_tools(home: Path) -> None:
    async def body(session: ClientSession, init: Any) -> Any:
        await session.send_ping()
        return init, await session.list_tools()

    init, listed = with_session(home, body)
    assert init.protocolVersion == LATEST_PROTOCOL_VERSION
    assert init.serverInfo.name == "memevo"
    assert init.capabilities.tools is not None
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == ["memory_explain", "memory_get", "memory_recall"]
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.readOnlyHint is True
        assert tool.annotations.destructiveHint is False
        assert tool.inputSchema["type"] == "object" and tool.inputSchema["additionalProperties"] is False
    assert tools["memory_recall"].inputSchema["required"] == ["query"]
    assert tools["memory_recall"].inputSchema["properties"]["query"]["maxLength"] == 512


def test_recall_get_and_explain_a_stored_claim_leave_the_store_unchanged(home: Path) -> None:
    [claim_id, _] = seed(home, PORT_CLAIM, "The deploy script lives in ops/deploy.sh")
    before = store_state(home)

    async def body(session: ClientSession, init: Any) -> Any:
        recalled = await session.call_tool("memory_recall", {"query": "staging database port"})
        dashed = await session.call_tool("memory_recall", {"query": "--staging port"})
        got = await session.call_tool("memory_get", {"id": claim_id})
        explained = await session.call_tool("memory_explain", {"query": "staging database port", "id": claim_id})
        return recalled, dashed, got, explained

    recalled, dashed, got, explained = with_session(home, body)
    for result in (recalled, dashed, got, explained):
        assert result.isError is False, text_of(result)
    text = text_of(recalled)
    assert text.startswith("<memevo-recall>") and claim_id in text and "6543" in text
    assert "deploy" not in text  # only what is relevant
    assert len(text.encode("utf-8")) <= 2048
    assert claim_id in text_of(dashed) and "6543" in text_of(dashed)
    shown = text_of(got)
    assert claim_id in shown and PORT_CLAIM in shown and "status:" in shown and "freshness:" in shown
    assert f"claim {claim_id}: selected" in text_of(explained)
    assert store_state(home) == before


def test_tool_failures_are_error_results_that_say_what_to_do(home: Path) -> None:
    seed(home, PORT_CLAIM)

    async def body(session: ClientSession, init: Any) -> Any:
        results = [
            await session.call_tool("memory_recall", {"query": 42}),
            await session.call_tool("memory_recall", {"query": "x" * 513}),
            await session.call_tool("memory_recall", {"topic": "port"}),
            await session.call_tool("memory_get", {"id": "not-an-id"}),
            await session.call_tool("memory_get", {"id": "0" * 24}),
        ]
        with pytest.raises(McpError) as unknown:
            await session.call_tool("memory_forget", {"id": "0" * 24})
        # The session still works after every failure.
        results.append(await session.call_tool("memory_recall", {"query": "staging port"}))
        return results, unknown.value.error

    results, unknown = with_session(home, body)
    *failures, last = results
    messages = [text_of(r) for r in failures]
    assert all(r.isError is True for r in failures), messages
    assert "1-512 characters" in messages[0]
    assert "at most 512" in messages[1]
    assert "no argument 'topic'" in messages[2] and "query" in messages[2]
    assert "24 lowercase hex" in messages[3]
    assert "no claim with id" in messages[4] and "memory_recall" in messages[4]
    assert not any("Traceback" in m for m in messages)
    assert unknown.code == -32602 and "memory_recall" in unknown.message
    assert last.isError is False and "6543" in text_of(last)


def test_lookups_without_a_store_answer_and_create_none(home: Path) -> None:
    async def body(session: ClientSession, init: Any) -> Any:
        return (
            await session.call_tool("memory_recall", {"query": "anything"}),
            await session.call_tool("memory_explain", {"query": "anything"}),
        )

    recalled, explained = with_session(home, body)
    assert recalled.isError is False and "no memories yet" in text_of(recalled)
    assert explained.isError is False and "plan:" in text_of(explained)
    assert not (home / "memory.db").exists()


def test_each_answered_lookup_is_in_the_injection_log_without_its_query(home: Path) -> None:
    import json

    [claim_id] = seed(home, PORT_CLAIM)

    async def body(session: ClientSession, init: Any) -> Any:
        await session.call_tool("memory_recall", {"query": "staging database port"})
        await session.call_tool("memory_get", {"id": claim_id})
        await session.call_tool("memory_get", {"id": "not-an-id"})  # refused: nothing shown, not logged

    with_session(home, body)
    log = home / "logs" / "injections.jsonl"
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["kind"], e["via"], e["claims"]) for e in entries] == [
        ("lookup", "mcp memory_recall", [claim_id]),
        ("lookup", "mcp memory_get", [claim_id]),
    ]
    assert entries[0]["agent"] == "mcp"  # the SDK client's own name
    assert "staging" not in log.read_text()  # never the query
    assert log.stat().st_mode & 0o777 == 0o600
