"""Claude Code as the model: ``claude -p`` with the person's own login.

The flags (checked against the pinned CLI's ``--help`` and a run against a loopback fake):
``--output-format json`` prints one result object; ``--json-schema`` makes the model answer
through Claude Code's ``StructuredOutput`` tool, the only tool offered (``--tools ""``, and
``ENABLE_TOOL_SEARCH=false`` drops the deferred-tool placeholder); ``--strict-mcp-config``
loads no MCP server; ``--setting-sources ""`` loads none of the person's settings files
(their hooks, plugins and permissions), ``--settings '{"disableAllHooks": true}'`` turns off
any hook left; ``--disable-slash-commands`` loads no skill; ``--no-session-persistence``
saves no session; ``--system-prompt`` replaces Claude Code's own; ``--max-turns 1`` (not
listed by ``--help``, accepted) and ``CLAUDE_CODE_MAX_RETRIES=0`` keep it to one request.
An answer cut off at the output limit is the exception: the CLI then asks the model once
more to use its structured-output tool and ends with ``error_max_turns`` (two requests,
and the result no longer says it was cut off), which is refused as ``invalid_output``. ``--bare`` is not used:
it accepts only an API key, not a subscription's login.

A normal completion is ``subtype: success`` with ``terminal_reason: completed`` and a
``structured_output`` object. The model is the ``modelUsage`` key (the model id the API
reported), never the alias asked for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.consolidation.contract import response_schema
from memory_core.records import ErrorCode, Reason
from workers.model_call import ModelCallError
from workers.model_client import http_reason
from workers.providers.common import (
    CliCompletion,
    cost,
    count,
    exit_failure,
    finished,
    json_object,
    mapping,
    model_name,
    parsed_output,
)
from workers.providers.process import CliResult

ENVIRONMENT = {
    "ENABLE_TOOL_SEARCH": "false",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    # One call per attempt: a refused or overloaded request is memevo's to retry, with backoff.
    "CLAUDE_CODE_MAX_RETRIES": "0",
}
# Headless flags, for doctor to check against the installed CLI's --help.
FLAGS = (
    "--output-format",
    "--json-schema",
    "--tools",
    "--no-session-persistence",
    "--strict-mcp-config",
    "--setting-sources",
    "--settings",
    "--system-prompt",
    "--disable-slash-commands",
    "--model",
)


def command(settings: Settings, program: str, system: str, workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The argument list and extra environment of one call (the prompt goes on stdin)."""
    argv = [
        program,
        "-p",
        "--output-format",
        "json",
        "--json-schema",
        json.dumps(response_schema(), separators=(",", ":")),
        "--tools",
        "",
        "--no-session-persistence",
        "--strict-mcp-config",
        "--setting-sources",
        "",
        "--settings",
        json.dumps({"disableAllHooks": True}),
        "--disable-slash-commands",
        "--max-turns",
        "1",
        "--system-prompt",
        system or "Answer with JSON only.",
    ]
    if settings.cli_model:
        argv += ["--model", settings.cli_model]
    env = {**ENVIRONMENT, "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(settings.output_tokens)}
    return argv, env


def _model(usage: Any) -> str:
    """The model that did the work: the ``modelUsage`` key with the most output tokens."""
    if not isinstance(usage, dict) or not usage:
        return model_name(None)
    return model_name(
        max(
            usage,
            key=lambda name: count((usage[name] or {}).get("outputTokens") if isinstance(usage[name], dict) else 0),
        )
    )


def _cost(body: dict[str, Any]) -> float | None:
    """What the call cost as Claude Code reports it: ``total_cost_usd``, else the sum of each
    model's ``modelUsage[…].costUSD``; ``None`` when it says neither."""
    total = cost(body.get("total_cost_usd"))
    if total is not None:
        return total
    usage = body.get("modelUsage")
    parts = (
        [cost(entry.get("costUSD")) for entry in usage.values() if isinstance(entry, dict)]
        if isinstance(usage, dict)
        else []
    )
    known = [part for part in parts if part is not None]
    return sum(known) if known else None


def read(settings: Settings, result: CliResult) -> CliCompletion:
    """The answer of a finished ``claude -p``, or the failure it stands for."""
    body = parsed_output(result.returncode, result.stdout, json_object)
    if body.get("type") != "result":
        raise ModelCallError(ErrorCode.PROVIDER, "the CLI's result has another shape", reason=Reason.NO_CHOICES)
    usage = mapping(body.get("usage"))
    prompt_tokens = sum(
        count(usage.get(name)) for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    completion_tokens = count(usage.get("output_tokens"))
    spent: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": _cost(body),
    }
    status = body.get("api_error_status")
    if isinstance(status, int) and not isinstance(status, bool) and status >= 300:
        code = ErrorCode.UNAVAILABLE if status == 429 or status >= 500 else ErrorCode.PROVIDER
        raise ModelCallError(code, f"the model API answered HTTP {status}", reason=http_reason(status), **spent)
    if body.get("stop_reason") in ("max_tokens", "model_context_window_exceeded"):
        raise ModelCallError(ErrorCode.OUTPUT_LIMIT, reason=Reason.CUT_OFF, **spent)
    if body.get("permission_denials"):
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model tried to use a tool", reason=Reason.TOOL_CALLS, **spent
        )
    if body.get("subtype") != "success" or body.get("is_error") is not False:
        if result.returncode != 0 and body.get("subtype") == "success":
            raise exit_failure()
        raise ModelCallError(
            ErrorCode.PROVIDER if body.get("subtype") == "success" else ErrorCode.INVALID_OUTPUT,
            "the CLI did not end its answer normally",
            reason=Reason.CLI_ERROR if body.get("subtype") == "success" else Reason.WRONG_FINISH_REASON,
            **spent,
        )
    if body.get("terminal_reason") != "completed":
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT,
            "the CLI did not end its answer normally",
            reason=Reason.WRONG_FINISH_REASON,
            **spent,
        )
    answer = body.get("structured_output")
    if not isinstance(answer, dict):
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model answered without the structured answer", reason=Reason.NO_TEXT, **spent
        )
    return finished(
        settings,
        json.dumps(answer, ensure_ascii=False),
        model=_model(body.get("modelUsage")),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=spent["cost_usd"],
        json_mode="schema",
    )
