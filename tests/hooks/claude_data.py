"""The real Claude Code 2.1.x payloads and transcript in tests/data/claude-code, and helpers.

The payload files are what the CLI wrote to a hook's stdin (wrapped as ``{"event", "argv",
"payload", "env"}`` by the recording script); the transcripts are the session's JSONL files.
Helpers build new records by copying real ones and changing only the text or ids, so the
record shapes stay the CLI's own.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.hooks.support import hook_process, with_changes, write_records  # noqa: F401  (re-exported)
from tests.support.processes import REPO

DATA = REPO / "tests" / "data" / "claude-code"
SESSION = "56190f3c-58d2-4582-8686-30cf128cb449"
TRANSCRIPT = DATA / "transcripts" / f"-home-user-project__{SESSION}.jsonl"
# Claude Code 2.1.332 running memevo's own hooks (see tests/data/claude-code/README.md).
NEWER_TRANSCRIPT = DATA / "transcripts" / "v2.1.332-memevo-hooks.jsonl"
SUBAGENT_TRANSCRIPT = DATA / "transcripts" / f"-home-user-project__{SESSION}__subagents__agent-ac1bd997c8fc6dd0f.jsonl"

# promptId of each recorded turn
TURN_PLAIN = "01ef483b-e125-4390-8b05-7996ead36182"
TURN_BASH = "24bac910-18e9-4b54-8aaf-0d1197263a20"
TURN_SUBAGENT = "00843713-2fc1-4910-8363-1f985ad73298"
TURN_SLASH_COMMAND = "216b4314-4275-4cec-97de-debaab347be7"
TURN_API_ERROR = "e710bb24-d651-47fa-afb6-02542451247c"
TURN_COMPACT = "605f9e3b-3073-4476-ae35-848b19bfba92"
TURN_AFTER_COMPACT = "7e2f292b-40d4-4245-ae3d-e98712c15f97"


def payload(name: str, transcript: Path | str | None = TRANSCRIPT, **changes: Any) -> dict[str, Any]:
    """The recorded stdin of ``payloads/<name>.json``, pointed at ``transcript``.

    ``changes`` set fields; a value of ``None`` removes the field.
    """
    data = json.loads((DATA / "payloads" / f"{name}.json").read_text(encoding="utf-8"))["payload"]
    if "transcript_path" in data and transcript is not None:
        data["transcript_path"] = str(transcript)
    return with_changes(data, changes)


def records(path: Path = TRANSCRIPT) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def records_until(prompt_id: str, path: Path = TRANSCRIPT) -> list[dict[str, Any]]:
    """The transcript as it stood when the turn of ``prompt_id`` ended (later turns cut off)."""
    found = False
    kept = []
    for record in records(path):
        if record.get("type") == "user" and record.get("promptId"):
            if record["promptId"] == prompt_id:
                found = True
            elif found:
                break
        kept.append(record)
    assert found, prompt_id
    return kept


def user_record(text: str, prompt_id: str, *, uuid: str = "u-new", **changes: Any) -> dict[str, Any]:
    """A user record shaped like the recorded first prompt, saying ``text``."""
    template = next(r for r in records() if r.get("promptId") == TURN_PLAIN and r["type"] == "user")
    record = copy.deepcopy(template)
    record.update(promptId=prompt_id, uuid=uuid, **changes)
    record["message"]["content"] = text
    return record


def assistant_record(text: str, *, uuid: str = "a-new", message_id: str = "msg_new") -> dict[str, Any]:
    """An assistant text record shaped like the recorded first reply."""
    template = next(r for r in records() if r["type"] == "assistant")
    record = copy.deepcopy(template)
    record["uuid"] = uuid
    record["message"]["id"] = message_id
    record["message"]["content"] = [{"type": "text", "text": text}]
    return record
