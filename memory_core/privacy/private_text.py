"""Text a person marks private: ``<private>…</private>`` is removed before anything is kept.

The tags are matched in any case (``<PRIVATE>``, ``<Private >``); an unclosed ``<private>``
removes the rest of the text, and a closing tag without an opening one is removed alone.
Removal happens where hook, backfill and recall text enters (docs/configuration.md,
"Private text"), before any secret redaction, clipping, hashing, logging or model call, so
the dedupe keys of live hooks and backfill see the same text. Standard library only; one
linear scan, and none at all for a text without ``<``.
"""

from __future__ import annotations

import re

__all__ = ["has_private", "strip_private", "strip_private_json"]

# ``<private>`` up to the next ``</private>`` or the end of the text; a stray closing tag.
# Compiled on first use: most texts hold no ``<`` at all.
_PRIVATE = r"<\s*private\s*>.*?(?:<\s*/\s*private\s*>|\Z)|<\s*/\s*private\s*>"
_compiled: list[re.Pattern[str]] = []


def _pattern() -> re.Pattern[str]:
    if not _compiled:
        _compiled.append(re.compile(_PRIVATE, re.IGNORECASE | re.DOTALL))
    return _compiled[0]


def has_private(text: str) -> bool:
    """Whether ``text`` holds a private tag (opening or closing)."""
    return "<" in text and _pattern().search(text) is not None


def strip_private(text: str) -> str:
    """``text`` without its private parts. A removal between two words leaves one space, so
    ``a<private>b</private>c`` does not join ``a`` and ``c``; a text that was private as a
    whole becomes empty (callers drop it)."""
    if "<" not in text:
        return text
    pattern = _pattern()
    if pattern.search(text) is None:
        return text
    out: list[str] = []
    kept = 0
    for match in pattern.finditer(text):
        piece = text[kept : match.start()]
        if piece:
            if out and not out[-1][-1:].isspace() and not piece[0].isspace():
                out.append(" ")
            out.append(piece)
        kept = match.end()
    tail = text[kept:]
    if tail and out and not out[-1][-1:].isspace() and not tail[0].isspace():
        out.append(" ")
    out.append(tail)
    joined = "".join(out)
    return joined if joined.strip() else ""


def strip_private_json(raw: bytes) -> bytes:
    """A JSON document (a hook's payload kept on disk for later) with every string value
    stripped of its private parts; bytes that are not JSON, or hold no ``private`` (in any
    case, escaped or not), are returned as they are."""
    if b"private" not in raw.lower():
        return raw
    import json

    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return json.dumps(_stripped(value), ensure_ascii=False).encode("utf-8", errors="surrogatepass")


def _stripped(value: object) -> object:
    if isinstance(value, str):
        return strip_private(value)
    if isinstance(value, list):
        return [_stripped(item) for item in value]
    if isinstance(value, dict):
        return {key: _stripped(item) for key, item in value.items()}
    return value
