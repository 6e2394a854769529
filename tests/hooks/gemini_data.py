"""The real Gemini CLI 0.61 payloads and transcript in tests/data/gemini, and helpers.

``payloads/`` holds what the CLI wrote to a hook's stdin, wrapped as ``{"event", "argv",
"cwd", "stdin", "env"}`` (copied from the shared observations). ``session/`` is one session
recorded with memevo's Gemini scripts (tests/data/gemini/README.md): ``transcript.jsonl``
is its chat file as the CLI left it, ``hooks.jsonl`` every hook payload of the session in
order, each with how many lines the transcript had when the hook ran, so a test can cut the
transcript to what the hook saw.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.hooks.support import hook_process, with_changes, write_records  # noqa: F401  (re-exported)
from tests.support.processes import REPO

DATA = REPO / "tests" / "data" / "gemini"
TRANSCRIPT = DATA / "session" / "transcript.jsonl"
SESSION = "5bdf40da-0866-4a72-ac5c-5dd9b39dad18"

# The recorded turns, by the prompt each AfterAgent reported (hooks.jsonl).
TURN_STATEMENT = 0  # "Remember that …" (another hook's SessionStart context prepended)
TURN_TOOLS = 1  # three tool calls: echo, a failing ls, write_file
TURN_FILE_REFERENCE = 2  # "What does @notes.txt say …" (the prompt carries the file's content)
TURN_SLASH = 3  # "/about …" (the API-error turn before it has no AfterAgent)
TURN_PREFERENCE = 4  # "I prefer tabs over spaces."


def payload(name: str, transcript: Path | str | None = None, **changes: Any) -> dict[str, Any]:
    """The stdin of ``payloads/<name>.json`` (``transcript`` replaces its ``transcript_path``);
    ``changes`` set fields, ``None`` removes one."""
    data = json.loads((DATA / "payloads" / f"{name}.json").read_text(encoding="utf-8"))["stdin"]
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return with_changes(data, changes)


def session_hooks() -> list[tuple[dict[str, Any], int | None]]:
    """Every recorded hook payload of the session with the transcript's line count then."""
    rows = [json.loads(line) for line in (DATA / "session" / "hooks.jsonl").read_text(encoding="utf-8").splitlines()]
    return [(row["payload"], row["transcript_lines"]) for row in rows]


def transcript_lines(count: int | None = None) -> list[str]:
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    return lines if count is None else lines[:count]


def cut_transcript(path: Path, count: int | None) -> Path:
    """The recorded transcript as it stood after ``count`` lines, written to ``path``."""
    path.write_text("".join(transcript_lines(count)), encoding="utf-8")
    return path


def session_payload(event: str, index: int, tmp_path: Path, **changes: Any) -> dict[str, Any]:
    """The ``index``-th recorded ``event`` payload, pointed at the transcript as that hook saw it."""
    found = [(p, n) for p, n in session_hooks() if p["hook_event_name"] == event]
    data, lines = copy.deepcopy(found[index][0]), found[index][1]
    data["transcript_path"] = str(cut_transcript(tmp_path / f"{event}-{index}.jsonl", lines))
    return with_changes(data, changes)


def records(count: int | None = None) -> list[dict[str, Any]]:
    return [json.loads(line) for line in transcript_lines(count) if line.strip()]
