"""JSON-RPC 2.0 as MCP's stdio transport uses it: one message per line, UTF-8.

Everything here is data in, data out: reading a line into a message (or a
:class:`ProtocolError` with the standard code), shaping responses, and the protocol-version
negotiation of the MCP lifecycle.
"""

from __future__ import annotations

import json
from typing import Any

# The revisions served through the ``initialize`` handshake, newest first. A client asking
# for a revision not listed (e.g. the stateless 2026-07-28, which has no ``initialize``) is
# answered with the newest, as the lifecycle's version negotiation says; the client decides
# whether it can speak it.
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# One message may hold at most this many bytes (the lookups take 512 characters); a longer
# line is read to its end, dropped and answered with INVALID_REQUEST.
MAX_LINE_BYTES = 1 << 20


class ProtocolError(Exception):
    """A message that gets a JSON-RPC error response (``request_id`` ``None`` when unknown)."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def negotiate(requested: object) -> str:
    """The protocol version to answer ``initialize`` with: the client's when supported, else the latest."""
    return requested if isinstance(requested, str) and requested in SUPPORTED_VERSIONS else LATEST_VERSION


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def valid_id(value: object) -> bool:
    """MCP request ids are strings or integers (never null, never a boolean)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def parse_message(line: bytes) -> dict[str, Any]:
    """One JSON-RPC message from a line, or a :class:`ProtocolError` (-32700 or -32600)."""
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_no_constants)
    except UnicodeDecodeError:
        raise ProtocolError(PARSE_ERROR, "parse error: the line is not UTF-8; send one JSON object per line") from None
    except (ValueError, RecursionError) as exc:
        detail = str(exc)[:120] or "nested too deeply"
        raise ProtocolError(PARSE_ERROR, f"parse error: {detail}; send one JSON object per line") from None
    if isinstance(message, list):
        raise ProtocolError(INVALID_REQUEST, "batches are not supported; send one JSON-RPC message per line")
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, "a message must be a JSON object")
    request_id = message.get("id")
    known_id = request_id if valid_id(request_id) else None
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, 'a message must say "jsonrpc": "2.0"', known_id)
    if "id" in message and not valid_id(request_id):
        raise ProtocolError(INVALID_REQUEST, "a request id must be a string or an integer")
    if "method" in message and not isinstance(message["method"], str):
        raise ProtocolError(INVALID_REQUEST, '"method" must be a string', known_id)
    if "method" not in message and not ("result" in message or "error" in message):
        raise ProtocolError(INVALID_REQUEST, 'a request needs a "method"', known_id)
    return message


def params_of(message: dict[str, Any]) -> dict[str, Any]:
    """A request's ``params``: an object, or absent (an empty one); anything else is -32602."""
    params = message.get("params", {})
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, '"params" must be an object', message.get("id"))
    return params


def result_message(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def encode(message: dict[str, Any]) -> bytes:
    """One line: compact JSON (never a raw newline inside) and ``\\n``."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
