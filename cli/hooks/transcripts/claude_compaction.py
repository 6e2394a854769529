"""A Claude Code compaction summary as memevo captures it, whether it comes from the
PostCompact payload or from the user message Claude Code writes into the transcript after
compacting: the same text for one compaction either way."""

from __future__ import annotations

import re

# How Claude Code wraps a compaction summary in the transcript (see summary_from_compact_message).
_PREAMBLE = "This session is being continued from a previous conversation"
_TRAILERS = (
    "\n\nIf you need specific details from before compaction",
    "\nContinue the conversation from where it left off",
    "\n\nRecent messages are preserved verbatim",
)
_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.DOTALL)
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)
_BLANK_LINES = re.compile(r"\n\n+")
_SUMMARY_LABEL = "Summary:\n"


def canonical_summary(raw: str) -> str:
    """A compaction summary as memevo captures it: the ``<summary>`` body without the model's
    ``<analysis>``, blank-line runs collapsed, trimmed. This is what Claude Code keeps of it, so the
    PostCompact payload and the transcript give byte-identical text for one compaction."""
    text = _ANALYSIS.sub("", raw)
    match = _SUMMARY.search(text)
    if match:
        text = match.group(1)
    return _BLANK_LINES.sub("\n\n", text).strip()


def summary_from_compact_message(text: str) -> str:
    """The summary inside the user message Claude Code writes after compacting.

    The CLI wraps the summary as ``<preamble>\\n\\nSummary:\\n<body>\\n\\nIf you need specific
    details … read the full transcript at: …\\nContinue the conversation …``.
    """
    body = text
    if body.startswith(_PREAMBLE):
        body = body.partition("\n\n")[2]
    for trailer in _TRAILERS:
        cut = body.rfind(trailer)
        if cut >= 0:
            body = body[:cut]
    label = body.find(_SUMMARY_LABEL)
    if label == 0 or (label > 0 and body[label - 1] == "\n"):
        body = body[label + len(_SUMMARY_LABEL) :]
    return canonical_summary(body)
