"""`memevo mcp`: the read-only lookups as an MCP server over stdio (docs/mcp.md)."""

from __future__ import annotations

import sys

import click


@click.command("mcp")
def mcp_command() -> None:
    """Serve memory_recall, memory_get and memory_explain over MCP on stdin/stdout.

    An agent starts this itself (`memevo install AGENT` registers it); it reads one JSON-RPC
    message per line until stdin closes. Read-only: no tool writes the memory store. Its log
    is logs/mcp.log in the state dir.
    """
    import os

    from memory_core.model_providers import MODEL_CALL_MARKER

    if os.environ.get(MODEL_CALL_MARKER):
        # Started by an agent that memevo's worker runs as its model (which loads no MCP
        # server; this is the second line of defence): no lookup, no log line.
        sys.exit(0)
    from cli.mcp.server import serve
    from memory_core.paths import state_home

    sys.exit(serve(state_home()))


COMMANDS = [mcp_command]
