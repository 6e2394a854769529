"""Make captured text safe to store: valid UTF-8, no control characters, no secrets, bounded size.

Secrets are found by :mod:`memory_core.privacy.redaction` (every pattern there runs in linear
time; docs/hooks.md lists what is redacted), whose names are also importable from here.
It is loaded when first needed: defining its patterns costs a process about 2M
instructions, and a hook that only makes its input valid UTF-8 (a session start or end)
never redacts. :func:`sanitize_text` never redacts more than ``max_bytes`` +
:data:`SCAN_MARGIN` characters, whatever it is given; text marked ``<private>`` is removed
first (:mod:`memory_core.privacy.private_text`, one literal-led scan of the whole text).
"""

from __future__ import annotations

import re
import sys

from memory_core.privacy.private_text import strip_private

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:  # redaction's names, read from it on first use (see __getattr__)
    from memory_core.privacy.redaction import _STEPS as _STEPS  # run ungated by tests/unit/test_redaction_gates.py
    from memory_core.privacy.redaction import REDACTED as REDACTED
    from memory_core.privacy.redaction import looks_like_credential as looks_like_credential
    from memory_core.privacy.redaction import redact_secrets as redact_secrets

_FROM_REDACTION = frozenset({"REDACTED", "_STEPS", "lazy", "looks_like_credential", "redact_secrets"})


def __getattr__(name: str) -> object:
    """Redaction's names (``from memory_core.privacy.sanitize import redact_secrets``), loading it then;
    each is then bound here, so later reads do not come back."""
    if name not in _FROM_REDACTION:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from memory_core.privacy import redaction

    value = getattr(redaction, name)
    globals()[name] = value
    return value


_THIS = sys.modules[__name__]  # redact_clipped reads redact_secrets as an attribute: loaded on first use


__all__ = [
    "REDACTED",
    "SCAN_MARGIN",
    "SOURCE_MAX_BYTES",
    "clip_utf8",
    "looks_like_credential",
    "redact_clipped",
    "redact_secrets",
    "sanitize_text",
    "strip_controls",
    "valid_text",
]

SOURCE_MAX_BYTES = 32_000
# The longest secret that is still redacted whole when a long text is cut before scanning.
SCAN_MARGIN = 8_192

# Control characters except tab and newline (carriage returns become newlines). Compiled on
# first use (``re`` keeps the program; the hook entry's cache holds it already).
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]"
_SURROGATE = "[\ud800-\udfff]"


def valid_text(text: str) -> str:
    """``text`` as valid UTF-8: each lone surrogate (JSON ``"\\udc00"``) becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.compile(_SURROGATE).sub("\ufffd", text)
    return text


def strip_controls(text: str) -> str:
    """Remove control characters (keeping tabs and newlines)."""
    return re.compile(_CONTROL).sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


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


def redact_clipped(text: str, max_bytes: int) -> str:
    """Secrets redacted, then at most ``max_bytes`` of UTF-8; scans at most ``max_bytes`` +
    :data:`SCAN_MARGIN` characters of ``text``.

    A longer text is cut before scanning and the last :data:`SCAN_MARGIN` characters of
    what was scanned are dropped after redaction, so a secret cut in two at the scan limit
    can never reach the result, even when redaction shortened what came before it.
    """
    redact = _THIS.redact_secrets  # redaction's, loaded on first use (a test may replace it here)
    limit = max(max_bytes, 0) + SCAN_MARGIN
    if len(text) <= limit:
        return clip_utf8(redact(text), max_bytes)
    return clip_utf8(redact(text[:limit])[:-SCAN_MARGIN], max_bytes)


def sanitize_text(text: str, max_bytes: int = SOURCE_MAX_BYTES) -> str:
    """Valid UTF-8, private parts removed, controls removed, secrets redacted, capped at
    ``max_bytes`` (redaction first, so a cap can never leave half a secret behind; private
    parts before both, so a cap can never part an opening tag from its text)."""
    return redact_clipped(strip_controls(strip_private(valid_text(text))).lstrip(), max_bytes).strip()
