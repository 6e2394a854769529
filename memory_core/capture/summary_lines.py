"""Local claims from a compaction summary: only lines that label themselves.

A summary is prose written by the agent; only lines that say what they are ("Decision:",
"Preference:", "偏好：" …) become claims without a model. Everything else waits for the
model pass, so a paraphrase never turns into a fact by accident.
"""

from __future__ import annotations

import re

from memory_core.ids import normalize_content

LOCAL_CLAIM_LIMIT = 16
MIN_CHARS, MAX_CHARS = 4, 480

_LABELS = {
    "fact": "fact",
    "facts": "fact",
    "事实": "fact",
    "decision": "decision",
    "decided": "decision",
    "决定": "decision",
    "决策": "decision",
    "preference": "preference",
    "user preference": "preference",
    "偏好": "preference",
    "project state": "project_state",
    "project status": "project_state",
    "status": "project_state",
    "progress": "project_state",
    "进展": "project_state",
    "状态": "project_state",
}
_LINE = re.compile(
    r"^\s*(?:[-*•]|\d+[.)])?\s*(?:\*\*)?(?P<label>[A-Za-z \u4e00-\u9fff]{2,16}?)(?:\*\*)?\s*[:：]\s*"
    r"(?:\*\*)?\s*(?P<body>.+?)\s*$"
)


def extract_local_claims(summary: str) -> list[tuple[str, str]]:
    """(kind, content) pairs for labelled lines, at most :data:`LOCAL_CLAIM_LIMIT`, no repeats."""
    found: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for line in summary.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        kind = _LABELS.get(match.group("label").strip().lower())
        if kind is None:
            continue
        body = normalize_content(match.group("body"))
        if not MIN_CHARS <= len(body) <= MAX_CHARS or (kind, body) in seen:
            continue
        seen.add((kind, body))
        found.append((kind, body))
        if len(found) == LOCAL_CLAIM_LIMIT:
            break
    return found
