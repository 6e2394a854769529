"""`memevo mcp`: memevo's read-only lookups as an MCP server over stdio (docs/mcp.md).

``protocol`` frames and checks JSON-RPC messages, ``tools`` defines and answers the tools,
``server`` runs the loop. Standard library only (plus the read paths of ``memory_core``):
the official SDK costs seconds to import.
"""
