"""Pi as the model: ``pi -p --mode json`` with the person's own providers and keys.

The flags (checked against the pinned CLI and a run against a loopback fake chat API):
``--mode json`` prints every event as a JSON line; ``--no-session`` saves nothing;
``--no-tools`` offers no tool; ``--no-extensions`` loads no extension (memevo's own Pi
extension included, so no hook of it runs), ``--no-skills``, ``--no-prompt-templates``,
``--no-themes`` and ``--no-context-files`` load nothing else; ``--offline`` makes no
start-up network call; ``--system-prompt`` replaces Pi's own.

A normal completion is the last assistant message of ``agent_end`` with ``stopReason:
stop``; ``length`` is a cut-off answer, ``toolUse`` a tool call, ``error``/``aborted`` a
failed call. The model is that message's ``provider/model``, as Pi reports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.records import ErrorCode, Reason
from workers.model_call import ModelCallError
from workers.providers.common import (
    CliCompletion,
    cost,
    count,
    exit_failure,
    finished,
    json_lines,
    mapping,
    model_name,
    parsed_output,
)
from workers.providers.process import CliResult

ENVIRONMENT = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
FLAGS = (
    "--mode",
    "--no-session",
    "--no-tools",
    "--no-extensions",
    "--no-skills",
    "--no-prompt-templates",
    "--no-themes",
    "--no-context-files",
    "--offline",
    "--system-prompt",
    "--model",
)


def command(settings: Settings, program: str, system: str, workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The argument list and extra environment of one call (the prompt goes on stdin)."""
    argv = [
        program,
        "-p",
        "--mode",
        "json",
        "--no-session",
        "--no-tools",
        "--no-extensions",
        "--no-skills",
        "--no-prompt-templates",
        "--no-themes",
        "--no-context-files",
        "--offline",
        "--system-prompt",
        system or "Answer with JSON only.",
    ]
    if settings.cli_model:
        argv += ["--model", settings.cli_model]
    return argv, dict(ENVIRONMENT)


def _last_assistant(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    ends = [e for e in events if e.get("type") == "agent_end" and isinstance(e.get("messages"), list)]
    if not ends:
        return None
    for message in reversed(ends[-1]["messages"]):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return message
    return None


def read(settings: Settings, result: CliResult) -> CliCompletion:
    """The answer of a finished ``pi --mode json -p``, or the failure it stands for."""
    events = parsed_output(result.returncode, result.stdout, json_lines)
    message = _last_assistant(events)
    if message is None:
        if result.returncode != 0:
            raise exit_failure()
        raise ModelCallError(ErrorCode.PROVIDER, "the CLI's output has no answer in it", reason=Reason.NO_CHOICES)
    usage = mapping(message.get("usage"))
    prompt_tokens = count(usage.get("input")) + count(usage.get("cacheRead")) + count(usage.get("cacheWrite"))
    completion_tokens = count(usage.get("output"))
    # Pi reports what the call cost in its usage: ``cost.total`` in US dollars.
    spent: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": cost(mapping(usage.get("cost")).get("total")),
    }
    stop = message.get("stopReason")
    if stop == "length":
        raise ModelCallError(ErrorCode.OUTPUT_LIMIT, reason=Reason.CUT_OFF, **spent)
    if stop == "toolUse":
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model tried to use a tool", reason=Reason.TOOL_CALLS, **spent
        )
    if stop in ("error", "aborted"):
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, "the CLI reported a failed model call", reason=Reason.CLI_ERROR, **spent
        )
    if stop != "stop":
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT,
            "the CLI did not end its answer normally",
            reason=Reason.WRONG_FINISH_REASON,
            **spent,
        )
    if result.returncode != 0:
        raise exit_failure()
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    text = "".join(
        p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    )
    provider, model = message.get("provider"), message.get("model")
    named = f"{provider}/{model}" if isinstance(provider, str) and provider and isinstance(model, str) else model
    return finished(
        settings,
        text,
        model=model_name(named),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=spent["cost_usd"],
    )
