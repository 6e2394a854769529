"""A Codex rollout's tool calls as operations: a call record's tool and input (a shell call as
its command line), its output (unwrapped of the unified-exec header, with the exit code it
names) and the command's own execution record, which decides its status when there is one."""

from __future__ import annotations

import json
import re
from typing import Any

from cli.hooks.event import MAX_OPERATION_INPUT, MAX_OPERATION_OUTPUT, MAX_OPERATIONS, Operation, clip_middle
from cli.hooks.transcripts.common import nonempty

_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.MULTILINE)
_OUTPUT_MARK = "\nOutput:\n"
_SHELL_TOOLS = ("exec_command", "shell", "local_shell", "shell_command", "container.exec")


def execution_of(record: dict[str, Any]) -> dict[str, Any]:
    """What a command's own record says that :func:`_operation` reads, its output clipped."""
    aggregated = record.get("aggregated_output")
    return {
        "exit_code": record.get("exit_code"),
        "aggregated_output": clip_middle(aggregated, MAX_OPERATION_OUTPUT) if isinstance(aggregated, str) else None,
        "status": record.get("status"),
    }


def hold_execution(executions: dict[str, dict[str, Any]], call_id: str, execution: dict[str, Any]) -> None:
    executions[call_id] = execution
    if len(executions) > MAX_OPERATIONS:  # of calls never seen: the oldest go
        executions.pop(next(iter(executions)))


def tool_call(payload: dict[str, Any]) -> dict[str, Any]:
    kind = payload.get("type")
    name = payload.get("name")
    if kind == "local_shell_call":
        action = payload.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        text = " ".join(str(w) for w in command) if isinstance(command, list) else ""
        return _new_call("local_shell", text, payload.get("call_id"))
    if kind == "custom_tool_call":
        return _new_call(str(name or "unknown"), str(payload.get("input") or ""), payload.get("call_id"))
    return _new_call(
        str(name or "unknown"), _arguments_text(str(name or ""), payload.get("arguments")), payload.get("call_id")
    )


def _new_call(tool: str, text: str, call_id: object) -> dict[str, Any]:
    # Clipped now, as the operation clips it: a call waiting for its output holds no file it writes.
    text = clip_middle(text, MAX_OPERATION_INPUT)
    return {"tool": tool, "input": text, "output": "", "call_id": nonempty(call_id), "result_id": None}


def _arguments_text(name: str, arguments: object) -> str:
    """A shell call as its command line (with its ``workdir`` kept as JSON); others as compact JSON."""
    if not isinstance(arguments, str):
        return "" if arguments is None else json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    if name in _SHELL_TOOLS and isinstance(value, dict):
        command = value.get("cmd", value.get("command"))
        if isinstance(command, list):
            command = " ".join(str(w) for w in command)
        if isinstance(command, str):
            workdir = value.get("workdir")
            if isinstance(workdir, str) and workdir:
                return json.dumps({"cmd": command, "workdir": workdir}, ensure_ascii=False, separators=(",", ":"))
            return command
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def output_text(output: object) -> str:
    """A tool output: a string, content items, or (older versions) ``{"content": …}``."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        return output_text(output.get("content") if "content" in output else output.get("output"))
    if isinstance(output, list):
        parts = []
        for item in output:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
            elif isinstance(item, dict) and str(item.get("type", "")).endswith("image"):
                parts.append("[image]")
        return "\n".join(parts)
    return ""


def operation_of(call: dict[str, Any], execution: dict[str, Any] | None) -> Operation:
    """The call with its output and status; the command's own record, when there is one, decides."""
    output, status = call["output"], "interrupted"
    if call["result_id"] is not None:
        output, code = _unwrap_output(output)
        if execution is not None:
            code = execution.get("exit_code") if isinstance(execution.get("exit_code"), int) else code
            aggregated = execution.get("aggregated_output")
            if isinstance(aggregated, str):
                output = aggregated
            if execution.get("status") in ("declined", "failed") and code is None:
                code = 1
        status = "error" if code not in (None, 0) else "ok"
    return Operation.bounded(call["tool"], call["input"], output, status, call["call_id"], nonempty(call["result_id"]))


def _unwrap_output(text: str) -> tuple[str, int | None]:
    """A shell output without the unified-exec header, and the exit code it names."""
    stripped = text.lstrip()
    if stripped.startswith("{"):  # older versions: {"output": …, "metadata": {"exit_code": …}}
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            metadata = value.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            return value["output"], code if isinstance(code, int) else None
    head, mark, body = text.partition(_OUTPUT_MARK)
    match = _EXIT_CODE.search(head if mark else text[:512])
    code = int(match.group(1)) if match else None
    return (body if mark and match else text), code
