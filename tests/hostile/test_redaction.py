"""Redaction: planted secrets of every supported shape are removed, look-alikes survive, and
the sanitizer's work is bounded whatever it is given."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.privacy import sanitize
from memory_core.privacy.sanitize import (
    REDACTED,
    SCAN_MARGIN,
    SOURCE_MAX_BYTES,
    looks_like_credential,
    redact_clipped,
    redact_secrets,
    sanitize_text,
)
from tests.hostile.secrets_corpus import NEGATIVES, POSITIVES, PROVIDER_KEYS, key


def test_the_corpus_is_large_enough() -> None:
    assert len(POSITIVES) >= 40 and len(NEGATIVES) >= 40
    assert len({text for text, _ in POSITIVES}) == len(POSITIVES) and len(set(NEGATIVES)) == len(NEGATIVES)


@pytest.mark.parametrize(("text", "secret"), POSITIVES, ids=[f"p{i:02d}" for i in range(len(POSITIVES))])
def test_every_planted_secret_is_redacted(text: str, secret: str) -> None:
    clean = redact_secrets(text)
    assert secret not in clean
    assert REDACTED in clean
    assert redact_secrets(clean) == clean  # a second pass changes nothing
    assert secret not in sanitize_text(text)


@pytest.mark.parametrize("text", NEGATIVES, ids=[f"n{i:02d}" for i in range(len(NEGATIVES))])
def test_look_alikes_survive(text: str) -> None:
    assert redact_secrets(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "my password is hunter2Tr0ub4dor for the staging box",
        "my password is hunter2Tr0ub4dor for the staging box\n",
    ],
)
def test_the_reported_sentence_keeps_its_words(text: str) -> None:
    assert sanitize_text(text) == "my password is [REDACTED] for the staging box"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("hunter2Tr0ub4dor", True),
        ("Xy7!pq", True),
        ("dXNlcjpwYXNz", True),
        ("'two words'", True),
        ("required", False),
        ("Valid", False),
        ("JSON", False),
        ("$DB_PASS", False),
        ("${TOKEN}", False),
        ("<password>", False),
        ("{{ secret }}", False),
        ("***", False),
        ("top-secret", False),
        ("docs.example.com", False),
        ("4821", False),
        (REDACTED, False),
    ],
)
def test_what_looks_like_a_credential(value: str, expected: bool) -> None:
    assert looks_like_credential(value) is expected
    assert looks_like_credential("4821", password_word=True)


_WORDS = st.lists(
    st.sampled_from(
        [
            "the",
            "deploy",
            "uses",
            "port",
            "5433",
            "ok,",
            "note:",
            "(see",
            "x)",
            "\n",
            "密码",
            "令牌",
            "a.b",
            "--flag",
            "=",
            ":",
        ]
    ),
    max_size=12,
).map(" ".join)
_KEYS = st.sampled_from(PROVIDER_KEYS)


@settings(max_examples=60, deadline=None)
@given(before=_WORDS, planted=_KEYS, after=_WORDS)
def test_a_provider_key_is_redacted_in_any_surroundings(before: str, planted: str, after: str) -> None:
    assert planted not in redact_secrets(f"{before} {planted} {after}")


def test_sanitize_scans_a_bounded_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = sanitize.redact_secrets

    def counting(text: str) -> str:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(sanitize, "redact_secrets", counting)
    clean = sanitize_text("word " * 400_000)  # 2,000,000 characters
    assert seen == [SOURCE_MAX_BYTES + SCAN_MARGIN]
    assert len(clean.encode("utf-8")) <= SOURCE_MAX_BYTES


def test_a_secret_cut_at_the_scan_limit_never_survives() -> None:
    # The first line shrinks from 20,000 characters to a marker, which pulls what was read
    # near the scan limit into the stored range: a key cut in two there must not come along.
    limit = SOURCE_MAX_BYTES + SCAN_MARGIN
    planted = key("sk-" + "proj-", 40)
    head = "API_TOKEN=" + "Q" * 20_000 + "\n"
    filler = "z " * ((limit - len(head) - 12) // 2)
    text = head + filler + planted + " tail " * 2_000
    cut = planted[: limit - len(head) - len(filler)]
    assert 3 < len(cut) < len(planted)  # the scan limit falls inside the key
    clean = redact_clipped(text, SOURCE_MAX_BYTES)
    assert cut not in clean and planted not in clean


def test_valid_text_replaces_lone_surrogates_only() -> None:
    assert sanitize.valid_text("a\udc00b\ud83d") == "a\ufffdb\ufffd"
    assert sanitize.valid_text("ok 😀 中文") == "ok 😀 中文"
    assert sanitize_text("x \udc00 y").encode("utf-8") == "x \ufffd y".encode()
