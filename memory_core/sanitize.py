"""Make captured text safe to store: no control characters, no secrets, bounded size."""

from __future__ import annotations

import re

SOURCE_MAX_BYTES = 32_000
REDACTED = "[REDACTED]"

# Control characters except tab and newline (carriage returns become newlines).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]")

_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
_TOKEN_PATTERNS = (
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"),  # OpenAI / Anthropic style keys
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),  # GitHub tokens
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),  # Slack tokens
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API keys
    re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),  # JWTs
)
_BEARER = re.compile(r"(?i)\b(bearer|token)\s+[A-Za-z0-9._~+/\-]{12,}=*")
_URL_PASSWORD = re.compile(r"([a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)", re.IGNORECASE)
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*(?:secret|token|passwd|password|pwd|api[_-]?key|access[_-]?key|private[_-]?key|credential)"
    r"[A-Za-z0-9_.\-]*"
)
# `NAME: value` / `NAME=value` at the start of a line: the whole rest of the line.
_SECRET_ASSIGNMENT = re.compile(r"(?im)^(\s*(?:export\s+)?" + _SECRET_NAME + r"\s*[:=]\s*)(\S.*)$")
# `NAME=value` inside a line (shell commands, env dumps): the value up to whitespace.
_INLINE_ASSIGNMENT = re.compile(r"(?i)\b(" + _SECRET_NAME + r"=)(\"[^\"]*\"|'[^']*'|[^\s\"']+)")


def strip_controls(text: str) -> str:
    """Remove control characters (keeping tabs and newlines)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def redact_secrets(text: str) -> str:
    """Replace API keys, tokens, private keys and passwords with a marker."""
    text = _PRIVATE_KEY.sub(REDACTED, text)
    text = _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)
    text = _INLINE_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + m.group(2), text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + REDACTED, text)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def clip_utf8(text: str, max_bytes: int) -> str:
    """At most ``max_bytes`` of UTF-8, cut only between characters."""
    raw = text.encode("utf-8", errors="surrogatepass")
    if len(raw) <= max_bytes:
        return text
    cut = max(max_bytes, 0)
    # A byte of the form 10xxxxxx continues a character begun before the cut.
    while cut > 0 and raw[cut] & 0xC0 == 0x80:
        cut -= 1
    return raw[:cut].decode("utf-8", errors="surrogatepass")


def sanitize_text(text: str, max_bytes: int = SOURCE_MAX_BYTES) -> str:
    """Controls removed, secrets redacted, capped at ``max_bytes`` (redaction first, so a
    cap can never leave half a secret behind)."""
    return clip_utf8(redact_secrets(strip_controls(text)).strip(), max_bytes)
