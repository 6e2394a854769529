"""memevo's ``[mcp_servers.memevo]`` table in Codex's ``config.toml``, edited as text.

The standard library reads TOML but cannot write it, and rewriting a person's file from
data would lose their comments and layout. So the edit is textual and checked: memevo's
tables (``[mcp_servers.memevo]`` and its ``[mcp_servers.memevo.*]`` sub-tables) are cut from
their header to the next header and the new ones appended at the end; the result must parse
and, read back, equal the original with only memevo's server changed. Anything else (the
server given as an inline table or dotted keys, a file that does not parse) is refused with
a message, never rewritten.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.install.settings_json import SettingsFileError

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?\s*(#.*)?$")


def _refuse(path: Path, problem: str) -> SettingsFileError:
    return SettingsFileError(f"{path} {problem}; fix the file and run the command again (nothing was changed)", problem)


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _refuse(path, f"is not valid TOML ({exc})") from None


def _servers(path: Path, data: Mapping[str, Any]) -> Mapping[str, Any]:
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, Mapping):
        raise _refuse(path, '"mcp_servers" is not a table')
    return servers


def find_server(text: str, name: str, path: Path = Path("config.toml")) -> dict[str, Any] | None:
    """The server ``name`` as the file defines it, ``None`` when absent (refused when unreadable)."""
    found = _servers(path, _parse(path, text)).get(name)
    return dict(found) if isinstance(found, Mapping) else None


def _key_path(header: str) -> list[str] | None:
    """A table header's dotted key as parts (quotes removed), ``None`` when unreadable."""
    try:
        probe = tomllib.loads(f"[{header}]\n")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    node: Any = probe
    while isinstance(node, dict) and len(node) == 1:
        key = next(iter(node))
        parts.append(key)
        node = node[key]
    return parts


def _without_tables(text: str, name: str) -> str:
    """``text`` without the tables ``mcp_servers.<name>`` and their sub-tables."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        match = _HEADER.match(line.rstrip("\r\n"))
        if match is not None:
            parts = _key_path(match.group("name"))
            skipping = parts is not None and parts[:2] == ["mcp_servers", name]
        if not skipping:
            kept.append(line)
    rest = "".join(kept)
    if skipping and rest.endswith("\n\n"):  # the blank line install put before tables at the end
        rest = rest[:-1]
    return rest


def _value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # an ASCII JSON string is a valid TOML basic string
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def render_tables(name: str, entry: Mapping[str, Any]) -> str:
    """``[mcp_servers.<name>]`` with its plain values, then one sub-table per nested object."""
    lines = [f"[mcp_servers.{_key(name)}]"]
    nested = {k: v for k, v in entry.items() if isinstance(v, Mapping)}
    lines += [f"{_key(k)} = {_value(v)}" for k, v in entry.items() if k not in nested]
    for key, table in nested.items():
        lines += ["", f"[mcp_servers.{_key(name)}.{_key(key)}]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def with_server(path: Path, text: str, name: str, entry: Mapping[str, Any] | None) -> str:
    """``text`` whose server ``name`` is ``entry`` (``None``: removed), checked as described above."""
    data = _parse(path, text)
    servers = _servers(path, data)
    current = servers.get(name)
    if entry is None and current is None:
        return text
    if entry is not None and current == entry:
        return text
    rest = _without_tables(text, name) if current is not None else text
    if entry is not None:
        try:
            tables = render_tables(name, entry)
        except TypeError:  # a value of the person's own memevo cannot write back (an array of tables)
            tables = ""
        if rest and not rest.endswith("\n"):
            rest += "\n"
        rest += ("\n" if rest.strip() else "") + tables
    expected = copy.deepcopy(data)
    expected_servers = expected.setdefault("mcp_servers", {})
    expected_servers.pop(name, None)
    if entry is not None:
        expected_servers[name] = copy.deepcopy(dict(entry))
    elif not expected_servers and "mcp_servers" not in _parse(path, rest):
        del expected["mcp_servers"]
    try:
        result = tomllib.loads(rest)
    except tomllib.TOMLDecodeError:
        result = None
    if result != expected:
        raise _refuse(
            path,
            f'defines the MCP server "{name}" in a form memevo cannot edit safely (an inline table or dotted keys); '
            f"make it a [mcp_servers.{name}] table or remove it",
        )
    return rest
