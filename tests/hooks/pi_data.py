"""The real Pi 0.73.1 event objects in tests/data/pi (see its README.md), and helpers."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.support.processes import REPO

DATA = REPO / "tests" / "data" / "pi"
SESSION_FILE = DATA / "session.jsonl"
# The session of the extension.* recordings and of session.jsonl.
SESSION = "01a239d2-914d-72b9-bbf4-faf9f80ab1e0"
# The session of the shared recordings (named by their session_file).
SHARED_SESSION = "01a237cd-68a4-76da-8e12-1a00155cfdfd"


def payload(name: str, **changes: Any) -> dict[str, Any]:
    """What an extension piped for ``<name>.json``: the ``stdin`` of a shared recording, or an
    ``extension.*`` payload as memevo's extension sent it; ``changes`` replace top-level keys."""
    data = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(data.get("stdin", data))
    data.update(changes)
    return data


def event_of(data: dict[str, Any]) -> dict[str, Any]:
    event = data["event"]
    assert isinstance(event, dict)
    return event


def session_entries() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SESSION_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_session(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path
