"""Identifiers and content hashes."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

ID_PATTERN = r"^[0-9a-f]{24}$"
_ID_RE = re.compile(ID_PATTERN)


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data`` in hex: the digest :mod:`hashlib` gives, from the interpreter's
    built-in implementation when it has one. :mod:`hashlib` loads OpenSSL, about 3-5 ms of
    every hook process that needs no other hash (the capture hook's ids and dedupe keys,
    the prompt stash's names)."""
    return str(_sha256()(data).hexdigest())


@functools.cache
def _sha256() -> Callable[[bytes], Any]:
    # Asked by the name this interpreter uses: a failed import searches the whole path.
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256  # type: ignore[import-not-found]
        else:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:  # an interpreter built without them
        from hashlib import sha256  # type: ignore[assignment]
    return sha256  # type: ignore[no-any-return]


def is_memory_id(text: str) -> bool:
    """True for exactly 24 lowercase hex characters."""
    return bool(_ID_RE.match(text))


def _digest(payload: object) -> str:
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return sha256_hex(raw.encode("utf-8"))


def normalize_content(content: str) -> str:
    """The form two contents are compared in: NFC, collapsed whitespace.

    An ASCII text is its own NFC (no ASCII character composes or decomposes), so only other
    texts load :mod:`unicodedata` (a shared library a capture hook otherwise does not need)."""
    if not content.isascii():
        import unicodedata

        content = unicodedata.normalize("NFC", content)
    return " ".join(content.split())


def content_hash(content: str) -> str:
    """Hash of normalized content (origin is kept beside it wherever it is compared)."""
    return sha256_hex(normalize_content(content).encode("utf-8"))[:32]


def memory_id(origin: str, kind: str, content: str) -> str:
    """A claim id derived from its origin, kind and normalized content."""
    return _digest(["memory", origin, kind, normalize_content(content)])[:24]


def owned_memory_id(origin: str, kind: str, content: str, owner: str) -> str:
    """A claim id derived from its origin, kind, normalized content and owner: a team
    member's personal claim (memory_core.store.tables.claim_ids), so two members' identical
    personal claims are two rows."""
    return _digest(["memory", origin, kind, normalize_content(content), owner])[:24]


def source_id(dedupe_key: str) -> str:
    """A source id derived from its idempotency key, so capturing twice makes one source."""
    return _digest(["source", dedupe_key])[:24]


def random_id() -> str:
    """A fresh 24-hex id (manual actions, lease owners)."""
    return os.urandom(12).hex()  # what secrets.token_hex(12) returns, without its imports
