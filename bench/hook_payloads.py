"""The payloads ``bench/hooks.py`` gives its hooks on stdin: the generic hook protocol's and
Claude Code's (with the 200-record transcript of ``bench/claude_code_hooks.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def generic(event: str, cwd: str, **fields: Any) -> bytes:
    return json.dumps(
        {"schema": "memevo.hook/v1", "event": event, "cwd": cwd, "session_id": "bench-hooks", **fields}
    ).encode()


def claude_code_setup(tmp: Path) -> dict[str, Any] | None:
    try:
        from bench import claude_code_hooks as cc
    except ImportError:
        return None
    if not cc.REAL_TRANSCRIPT.exists():
        return None
    user_home = tmp / "user"
    project = user_home / "project"
    project.mkdir(parents=True)
    transcript = user_home / ".claude" / "projects" / "-tmp-user-project" / f"{cc.SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    records, last_turn = cc.build_transcript(str(project))
    cc.write_transcript(transcript, cc.with_statement(records, last_turn, cc.statement(0)))
    base = {"session_id": cc.SESSION, "transcript_path": str(transcript), "cwd": str(project)}
    return {
        "cc": cc,
        "user_home": user_home,
        "transcript": transcript,
        "records": records,
        "last_turn": last_turn,
        "prompt": {**cc.real_payload("UserPromptSubmit"), **base},
        "stop": {**cc.real_payload("Stop"), **base, "prompt_id": cc.STOP_PROMPT_ID},
    }
