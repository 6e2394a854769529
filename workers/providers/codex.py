"""Codex as the model: ``codex exec`` with the person's own login and provider.

The flags (checked against the pinned CLI and a run against a loopback fake of the
Responses API): ``--json`` prints events as JSON lines; ``--ephemeral`` saves no session;
``--output-schema FILE`` asks for the answer contract as a strict JSON schema; ``-s
read-only`` with ``--skip-git-repo-check`` in an empty directory. Codex offers its agent
tools by default; each is switched off for this run (``--disable`` of the features and
``-c`` of the tool settings below) until the request offers none, and
each MCP server of the person's config is disabled by name (``-c
mcp_servers.NAME.enabled=false``: an empty ``mcp_servers`` table does not replace theirs),
``--disable hooks`` runs no hook,
``skills.include_instructions=false`` and ``project_doc_max_bytes=0`` load no skill or
AGENTS.md, and ``model_instructions_file`` replaces Codex's own instructions with
memevo's system prompt (about 800 prompt tokens instead of 10,000).

A normal completion is a ``turn.completed`` event with no ``turn.failed`` or ``error``
event and an ``agent_message`` item. Codex does not name the model in its events, so the
model is the one memevo asked for (``-m``) or, without ``MEMEVO_MODEL``, the ``model`` of
the person's ``$CODEX_HOME/config.toml`` (only that key is read), which is what Codex runs;
with neither, :data:`UNNAMED_MODEL` says that Codex's built-in default answered.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.consolidation.contract import response_schema
from memory_core.records import ErrorCode, Reason
from workers.model_call import ModelCallError
from workers.providers.common import (
    CliCompletion,
    count,
    exit_failure,
    finished,
    json_lines,
    mapping,
    model_name,
    parsed_output,
)
from workers.providers.process import CliResult

DISABLED_FEATURES = (
    "shell_tool",
    "unified_exec",
    "view_image",
    "multi_agent",
    "goals",
    "apps",
    "plugins",
    "hooks",
    "image_generation",
    "sleep_tool",
    "skill_search",
    "browser_use",
    "computer_use",
    "tool_suggest",
    "memories",
)
SETTINGS = (
    'web_search="disabled"',
    "project_doc_max_bytes=0",
    "skills.include_instructions=false",
    "tools.experimental_request_user_input.enabled=false",
    "tools.update_plan.enabled=false",
    "check_for_update_on_startup=false",
    "analytics.enabled=false",
)
# Provenance when neither memevo nor the person's config names the model: Codex's built-in
# default ran, and the events do not say which it is.
UNNAMED_MODEL = "codex-default-model"
FLAGS = ("--json", "--ephemeral", "--output-schema", "--skip-git-repo-check", "--disable", "-c", "--model", "--sandbox")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# Items that mean the model acted instead of answering.
_TOOL_ITEMS = frozenset(
    {"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call", "image_generation"}
)


def command(settings: Settings, program: str, system: str, workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The argument list and extra environment of one call (the prompt goes on stdin)."""
    schema = workdir / "schema.json"
    schema.write_text(json.dumps(response_schema()), encoding="utf-8")
    instructions = workdir / "instructions.md"
    instructions.write_text(system or "Answer with JSON only.", encoding="utf-8")
    argv = [
        program,
        "exec",
        "--json",
        "--ephemeral",
        "--color",
        "never",
        "--skip-git-repo-check",
        "-s",
        "read-only",
        "--output-schema",
        str(schema),
    ]
    for feature in DISABLED_FEATURES:
        argv += ["--disable", feature]
    # Codex's -c splits its key at dots and does not read quoted keys: a name that is not a
    # bare key cannot be named there (such a server stays as configured; doctor says so).
    servers = [f"mcp_servers.{name}.enabled=false" for name in configured_mcp_servers() if _BARE_KEY.fullmatch(name)]
    for setting in (*SETTINGS, *servers, f"model_instructions_file={json.dumps(str(instructions))}"):
        argv += ["-c", setting]
    if settings.cli_model:
        argv += ["-m", settings.cli_model]
    argv.append("-")  # the prompt from stdin
    return argv, {"NO_COLOR": "1"}


def _user_config(env: dict[str, str] | None = None) -> dict[str, Any]:
    """The person's ``$CODEX_HOME/config.toml`` (empty when absent or unreadable); only its
    ``model`` and the names of its MCP servers are used."""
    env = dict(os.environ) if env is None else env
    home = Path(env.get("CODEX_HOME") or Path(env.get("HOME") or Path.home()) / ".codex")
    try:
        return tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def configured_model(env: dict[str, str] | None = None) -> str | None:
    """The ``model`` key of the person's Codex config, the model Codex runs without ``-m``."""
    model = _user_config(env).get("model")
    return model if isinstance(model, str) else None


def configured_mcp_servers(env: dict[str, str] | None = None) -> list[str]:
    """The names of the MCP servers the person's Codex config declares."""
    return sorted(mapping(_user_config(env).get("mcp_servers")))


def _usage(events: list[dict[str, Any]]) -> tuple[int, int]:
    prompt = completion = 0
    for event in events:
        if event.get("type") == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
            prompt += count(usage.get("input_tokens"))
            completion += count(usage.get("output_tokens")) + count(usage.get("reasoning_output_tokens"))
    return prompt, completion


def read(settings: Settings, result: CliResult) -> CliCompletion:
    """The answer of a finished ``codex exec --json``, or the failure it stands for."""
    events = parsed_output(result.returncode, result.stdout, json_lines)
    prompt_tokens, completion_tokens = _usage(events)
    spent: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
    kinds = [event.get("type") for event in events]
    items = [e["item"] for e in events if e.get("type") == "item.completed" and isinstance(e.get("item"), dict)]
    if any(item.get("type") in _TOOL_ITEMS for item in items):
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model tried to use a tool", reason=Reason.TOOL_CALLS, **spent
        )
    if "turn.failed" in kinds or "error" in kinds:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, "the CLI reported a failed model call", reason=Reason.CLI_ERROR, **spent
        )
    if "turn.completed" not in kinds:
        if result.returncode != 0:
            raise exit_failure()
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT,
            "the CLI did not end its turn normally",
            reason=Reason.WRONG_FINISH_REASON,
            **spent,
        )
    if result.returncode != 0:
        raise exit_failure()
    messages = [item.get("text") for item in items if item.get("type") == "agent_message"]
    text = messages[-1] if messages and isinstance(messages[-1], str) else ""
    return finished(
        settings,
        text,
        model=model_name(settings.model or configured_model() or UNNAMED_MODEL),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        json_mode="schema",
    )
