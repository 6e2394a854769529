"""Gemini CLI as the model: ``gemini -p`` with the person's own login.

The flags (checked against the pinned CLI and a run against a loopback fake of the Gemini
API): ``-o json`` prints one result object; ``--policy FILE`` with one rule denying every
tool makes the request offer none (an empty ``functionDeclarations``); ``-e none`` loads no
extension and ``--allowed-mcp-server-names`` naming no server loads no MCP server;
``--skip-trust`` trusts the empty working directory for this run only (one directory per user,
reused by every call, since Gemini CLI registers each directory it runs in); ``GEMINI_SYSTEM_MD``
replaces the CLI's system prompt with memevo's; ``--session-id`` names the session, so the
chat file the CLI always records is found and removed at once. Gemini CLI has no flag that
turns hooks off for one run, so its hooks rely on memevo's marker alone (every memevo hook
returns at once under it).

A normal completion is a result with a ``response`` and no ``error``, and no tool call in
its ``stats``. The model is the key of ``stats.models`` that answered (``-m flash`` is an
alias; the key is the model that ran).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.records import ErrorCode, Reason
from workers.model_call import ModelCallError
from workers.providers.common import (
    CliCompletion,
    count,
    exit_failure,
    finished,
    json_object,
    mapping,
    model_name,
    parsed_output,
)
from workers.providers.process import CliResult

POLICY = '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 999\n'
NO_MCP_SERVER = "memevo-none"
ENVIRONMENT = {"GEMINI_CLI_NO_RELAUNCH": "true", "GEMINI_TELEMETRY_ENABLED": "false", "NO_BROWSER": "true"}
FLAGS = ("--output-format", "--policy", "--extensions", "--allowed-mcp-server-names", "--skip-trust", "--session-id")


def command(settings: Settings, program: str, system: str, workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The argument list and extra environment of one call (the prompt goes on stdin)."""
    policy = workdir / "deny-all-tools.toml"
    policy.write_text(POLICY, encoding="utf-8")
    system_md = workdir / "system.md"
    system_md.write_text(system or "Answer with JSON only.", encoding="utf-8")
    session = str(uuid.uuid4())
    (workdir / ".memevo-session").write_text(session, encoding="utf-8")
    argv = [
        program,
        "-o",
        "json",
        "--policy",
        str(policy),
        "-e",
        "none",
        "--allowed-mcp-server-names",
        NO_MCP_SERVER,
        "--skip-trust",
        "--session-id",
        session,
    ]
    if settings.cli_model:
        argv += ["-m", settings.cli_model]
    argv += ["-p", ""]  # headless; the prompt comes on stdin
    return argv, {**ENVIRONMENT, "GEMINI_SYSTEM_MD": str(system_md)}


def remove_session(workdir: Path, env: dict[str, str] | None = None) -> int:
    """Remove the chat file the CLI recorded for this call's session; the number removed."""
    try:
        session = (workdir / ".memevo-session").read_text(encoding="utf-8").strip()
    except OSError:
        return 0
    env = dict(os.environ) if env is None else env
    root = Path(env.get("GEMINI_CLI_HOME") or env.get("HOME") or Path.home()) / ".gemini" / "tmp"
    removed = 0
    for path in root.glob(f"*/chats/session-*-{session[:8]}.json*"):
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed


def _model(models: Any) -> tuple[str, int, int]:
    """The model that answered (the one with the most output tokens) and the tokens of all."""
    if not isinstance(models, dict) or not models:
        return model_name(None), 0, 0
    prompt = completion = 0
    best, best_out = None, -1
    for name, entry in models.items():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        tokens = tokens if isinstance(tokens, dict) else {}
        out = count(tokens.get("candidates")) + count(tokens.get("thoughts"))
        prompt += count(tokens.get("prompt"))
        completion += out
        if out > best_out:
            best, best_out = name, out
    return model_name(best), prompt, completion


def read(settings: Settings, result: CliResult) -> CliCompletion:
    """The answer of a finished ``gemini -o json``, or the failure it stands for."""
    body = parsed_output(result.returncode, result.stdout, json_object)
    stats = mapping(body.get("stats"))
    error = body.get("error")
    if error is not None:
        code = error.get("code") if isinstance(error, dict) else None
        if code in (401, 403):
            raise ModelCallError(ErrorCode.PROVIDER, "the CLI is not logged in", reason=Reason.NOT_LOGGED_IN)
        if code == 429 or (isinstance(code, int) and code >= 500):
            raise ModelCallError(ErrorCode.UNAVAILABLE, "the model API is busy", reason=Reason.CLI_ERROR)
        raise ModelCallError(ErrorCode.PROVIDER, "the CLI reported an error", reason=Reason.CLI_ERROR)
    if "response" not in body:
        raise ModelCallError(ErrorCode.PROVIDER, "the CLI's result has another shape", reason=Reason.NO_CHOICES)
    model, prompt_tokens, completion_tokens = _model(stats.get("models"))
    spent: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
    tools = mapping(stats.get("tools"))
    if count(tools.get("totalCalls")):
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model tried to use a tool", reason=Reason.TOOL_CALLS, **spent
        )
    if result.returncode != 0:
        raise exit_failure()
    text = body.get("response")
    return finished(
        settings,
        text if isinstance(text, str) else "",
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
