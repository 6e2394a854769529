"""The JSON-RPC layer in process: framing, version negotiation, standard error codes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from cli.mcp import protocol
from cli.mcp.server import McpServer, read_line, serve


def answer(server: McpServer, line: str | bytes) -> dict[str, Any] | None:
    return server.handle_line(line.encode() if isinstance(line, str) else line)


def request(method: str, params: Any = None, request_id: Any = 1) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),  # the stateless revision has no initialize: our latest
        ("1999-01-01", "2025-11-25"),
    ],
)
def test_version_negotiation(home: Path, asked: str, answered: str) -> None:
    result = answer(McpServer(home), request("initialize", {"protocolVersion": asked, "capabilities": {}}))
    assert result is not None and result["result"]["protocolVersion"] == answered


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        ("{not json", protocol.PARSE_ERROR, None),
        (b"\xff\xfe{}", protocol.PARSE_ERROR, None),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": NaN}', protocol.PARSE_ERROR, None),
        ("[" * 100_000, protocol.PARSE_ERROR, None),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', protocol.INVALID_REQUEST, None),
        ('"ping"', protocol.INVALID_REQUEST, None),
        ('{"id": 3, "method": "ping"}', protocol.INVALID_REQUEST, 3),
        ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', protocol.INVALID_REQUEST, None),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', protocol.INVALID_REQUEST, None),
        ('{"jsonrpc": "2.0", "id": 4, "method": 7}', protocol.INVALID_REQUEST, 4),
        ('{"jsonrpc": "2.0", "id": 5}', protocol.INVALID_REQUEST, 5),
        (request("resources/list", request_id="r"), protocol.METHOD_NOT_FOUND, "r"),
        (request("tools/list", params=[1]), protocol.INVALID_PARAMS, 1),
        (request("initialize", {"capabilities": {}}), protocol.INVALID_PARAMS, 1),
        (request("tools/call", {"arguments": {}}), protocol.INVALID_PARAMS, 1),
        (request("tools/call", {"name": "memory_write", "arguments": {}}), protocol.INVALID_PARAMS, 1),
    ],
)
def test_standard_error_codes(home: Path, line: str | bytes, code: int, request_id: Any) -> None:
    result = answer(McpServer(home), line)
    assert result is not None
    assert result["error"]["code"] == code and result["id"] == request_id
    assert result["error"]["message"]


def test_notifications_and_responses_get_no_answer(home: Path) -> None:
    server = McpServer(home)
    for line in (
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}',
        '{"jsonrpc": "2.0", "method": "no/such/notification", "params": 5}',
        '{"jsonrpc": "2.0", "id": 9, "result": {}}',
        "   ",
    ):
        assert answer(server, line) is None


def test_ping_and_tools_list_need_no_params(home: Path) -> None:
    server = McpServer(home)
    assert answer(server, request("ping")) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    listed = answer(server, request("tools/list", {"cursor": "x"}, request_id="a"))
    assert listed is not None and [t["name"] for t in listed["result"]["tools"]] == [
        "memory_recall",
        "memory_get",
        "memory_explain",
    ]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (None, 'needs "query"'),
        ("staging port", "object of arguments"),
        ([1, 2], "object of arguments"),
        ({"query": None}, "1-512 characters"),
        ({"query": ["a"]}, "1-512 characters"),
        ({"query": "   "}, "1-512 characters"),
        ({"query": "q" * 513}, "at most 512"),
        ({"query": "port", "limit": 10}, "no argument 'limit'"),
    ],
)
def test_bad_arguments_are_tool_errors(home: Path, arguments: Any, says: str) -> None:
    params: dict[str, Any] = {"name": "memory_recall"}
    if arguments is not None:
        params["arguments"] = arguments
    result = answer(McpServer(home), request("tools/call", params))
    assert result is not None and result["result"]["isError"] is True
    assert says in result["result"]["content"][0]["text"]


def test_read_line_drops_a_line_past_the_bound() -> None:
    huge = b"x" * (protocol.MAX_LINE_BYTES + 10) + b"\n"
    stream = io.BytesIO(huge + b'{"a": 1}\n' + b"tail")
    assert read_line(stream) == (b"", False)
    assert read_line(stream) == (b'{"a": 1}', True)
    assert read_line(stream) == (b"tail", True)
    assert read_line(stream) is None


def test_serve_answers_in_order_and_logs_no_query(home: Path) -> None:
    lines = [
        request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}, request_id=1),
        request("tools/call", {"name": "memory_recall", "arguments": {"query": "secret topic words"}}, request_id=2),
        request("ping", request_id=3),
    ]
    out = io.BytesIO()
    home.mkdir(parents=True, exist_ok=True)  # the log goes to an existing state dir only
    assert serve(home, io.BytesIO("\n".join(lines).encode()), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    log = (home / "logs" / "mcp.log").read_text()
    assert "tools/call memory_recall: answered" in log and "stopped: stdin closed" in log
    assert "secret topic words" not in log


def test_a_session_without_tool_calls_logs_nothing(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    lines = [request("initialize", {"protocolVersion": "2025-06-18"}), request("tools/list", request_id=2)]
    assert serve(home, io.BytesIO("\n".join(lines).encode()), io.BytesIO()) == 0
    assert not (home / "logs").exists()


def test_no_state_dir_is_created_for_the_log(home: Path) -> None:
    line = request("tools/call", {"name": "memory_recall", "arguments": {"query": "x"}})
    assert serve(home, io.BytesIO(line.encode()), io.BytesIO()) == 0
    assert not home.exists()


def test_an_excluded_directory_gets_no_memory(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An agent started in a directory the exclude setting names sees no memory through the
    tools either (its hooks recall nothing there); the injection log records no lookup."""
    from tests.mcp.support import PORT_CLAIM, seed

    [claim] = seed(home, PORT_CLAIM)
    project = tmp_path / "clients" / "acme"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    lines = [
        request("tools/call", {"name": "memory_recall", "arguments": {"query": "staging database port"}}),
        request("tools/call", {"name": "memory_get", "arguments": {"id": claim}}, request_id=2),
    ]
    monkeypatch.setenv("MEMEVO_EXCLUDE", str(tmp_path / "clients"))
    out = io.BytesIO()
    assert serve(home, io.BytesIO("\n".join(lines).encode()), out) == 0
    answers = [json.loads(line)["result"] for line in out.getvalue().splitlines()]
    for result in answers:
        text = result["content"][0]["text"]
        assert not result["isError"] and "excluded in this directory" in text and "6543" not in text
    assert "tools/call memory_recall: excluded" in (home / "logs" / "mcp.log").read_text()
    assert not (home / "logs" / "injections.jsonl").exists()

    monkeypatch.delenv("MEMEVO_EXCLUDE")
    out = io.BytesIO()
    assert serve(home, io.BytesIO(lines[0].encode()), out) == 0
    assert "6543" in json.loads(out.getvalue())["result"]["content"][0]["text"]
    assert (home / "logs" / "injections.jsonl").exists()  # an answered lookup is recorded
