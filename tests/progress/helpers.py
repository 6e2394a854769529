"""Builders shared by the progress tests."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from cli.hooks.event import Operation
from memory_core.capture.work.progress import ProgressPlan, ProgressSkip, plan_progress

_ids = itertools.count(1)


def op(tool: str, input: str = "", output: str = "", status: str = "ok", *, linked: bool = True) -> Operation:
    """One tool call with a linked result (unless ``linked`` is false)."""
    call_id = f"toolu_{next(_ids):04d}"
    return Operation.bounded(tool, input, output, status, call_id, call_id if linked else None)


def bash(command: str, output: str = "", status: str = "ok", **kw: Any) -> Operation:
    return op("Bash", command, output, status, **kw)


def edit(path: str, old: str = "a", new: str = "b") -> Operation:
    return op("Edit", json.dumps({"file_path": path, "old_string": old, "new_string": new}), "The file was updated.")


def plan(
    messages: list[str] | str,
    operations: list[Operation],
    *,
    final: str | None = "Done.",
    error: bool = False,
    cwd: str = "/work/app",
    state_dir: Path | None = None,
) -> ProgressPlan | ProgressSkip:
    texts = [messages] if isinstance(messages, str) else messages
    return plan_progress(texts, operations, final_message=final, ended_in_error=error, cwd=cwd, state_dir=state_dir)


def planned(*args: Any, **kwargs: Any) -> ProgressPlan:
    result = plan(*args, **kwargs)
    assert isinstance(result, ProgressPlan), result
    return result


def skipped(*args: Any, **kwargs: Any) -> str:
    result = plan(*args, **kwargs)
    assert isinstance(result, ProgressSkip), result
    return result.reason
