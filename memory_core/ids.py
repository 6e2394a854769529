"""Identifiers and content hashes."""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata

ID_PATTERN = r"^[0-9a-f]{24}$"
_ID_RE = re.compile(ID_PATTERN)


def is_memory_id(text: str) -> bool:
    """True for exactly 24 lowercase hex characters."""
    return bool(_ID_RE.match(text))


def _digest(payload: object) -> str:
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def normalize_content(content: str) -> str:
    """The form two contents are compared in: NFC, collapsed whitespace."""
    return " ".join(unicodedata.normalize("NFC", content).split())


def content_hash(content: str) -> str:
    """Hash of normalized content (origin is kept beside it wherever it is compared)."""
    return hashlib.sha256(normalize_content(content).encode("utf-8")).hexdigest()[:32]


def memory_id(origin: str, kind: str, content: str) -> str:
    """A claim id derived from its origin, kind and normalized content."""
    return _digest(["memory", origin, kind, normalize_content(content)])[:24]


def source_id(dedupe_key: str) -> str:
    """A source id derived from its idempotency key, so capturing twice makes one source."""
    return _digest(["source", dedupe_key])[:24]


def random_id() -> str:
    """A fresh 24-hex id (manual actions, lease owners)."""
    return os.urandom(12).hex()  # what secrets.token_hex(12) returns, without its imports
