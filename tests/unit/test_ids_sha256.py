"""Ids, content hashes and dedupe keys hash with the interpreter's built-in SHA-256 (no
OpenSSL on the hook path, docs/hooks.md "Cost"); every digest is the one hashlib gives."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from memory_core import ids
from memory_core.capture.intake import dedupe_key


@given(st.binary(max_size=4096))
def test_sha256_hex_is_hashlibs_digest(data: bytes) -> None:
    assert ids.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_sha256_hex_of_a_large_input() -> None:
    data = bytes(range(256)) * 4096
    assert ids.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def _hashlib_digest(payload: object) -> str:
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@given(st.text(max_size=200), st.sampled_from(["fact", "preference", "project_state"]), st.text(max_size=40))
def test_ids_and_hashes_are_unchanged(content: str, kind: str, origin: str) -> None:
    normalized = ids.normalize_content(content)
    assert ids.content_hash(content) == hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:32]
    assert ids.memory_id(origin, kind, content) == _hashlib_digest(["memory", origin, kind, normalized])[:24]
    assert ids.source_id(origin) == _hashlib_digest(["source", origin])[:24]


def test_known_ids_stay_the_same() -> None:
    # Stored ids are derived from these: a changed digest would split a claim or a source in two.
    assert ids.content_hash("We use  Redis") == "c71549583f402a70024b478228b07cc4"
    assert ids.content_hash("部署需要 node 22") == "bddc1233138a0b23f4d3e63c1413d11c"
    assert ids.memory_id("/w", "fact", "We use Redis") == "d2352c756099709c355b611d"
    assert ids.source_id("generic|s1|summary|abc") == "f609007ff8c94633442fd12c"


@given(st.text(max_size=200))
def test_dedupe_keys_are_unchanged(text: str) -> None:
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]
    assert dedupe_key("claude-code", "s1", "user_statement", text) == f"claude-code|s1|user_statement|{digest}"
    identity = hashlib.sha256(b"identity:x").hexdigest()[:32]
    assert dedupe_key("codex", None, "progress", text, identity="x") == f"codex|-|progress|{identity}"
