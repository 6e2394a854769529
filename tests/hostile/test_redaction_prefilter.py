"""Redaction's pre-checks (literals and words a match must contain, judged once per text) give
byte for byte what every pattern run over every text gives, on the corpus and on generated
texts built to sit at the edge of each check: key fragments, key-body lines, case changes and
the characters case-insensitive matching folds onto ASCII letters."""

from __future__ import annotations

import random

import pytest

from memory_core.privacy import redaction
from memory_core.privacy.redaction import REDACTED, redact_secrets
from tests.hostile.secrets_corpus import NEGATIVES, POSITIVES, PROVIDER_KEYS

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# Long s and the Kelvin sign fold onto "s" and "k"; dotless and dotted i onto "i" (or not),
# so a pre-check written with ``lower()`` or ``casefold()`` would judge them wrongly.
FOLDS = {"s": "\u017f", "k": "\u212a", "K": "\u212a", "i": "\u0131", "I": "\u0130"}


def every_pattern(text: str) -> str:
    """The reference: every pattern, in order, over the text, with no pre-check."""
    for pattern, replacement, _ in redaction._STEPS:
        text = pattern.sub(replacement, text)
    return text


def folded(text: str, rng: random.Random | None = None) -> str:
    return "".join(FOLDS.get(c, c) if rng is None or rng.random() < 0.5 else c for c in text)


def variants(text: str) -> list[str]:
    return [text, text.upper(), text.lower(), text.swapcase(), folded(text), folded(text.upper())]


def key_body_line(rng: random.Random) -> str:
    return "".join(rng.choice(B64) for _ in range(rng.randint(56, 80))) + "=" * rng.randint(0, 2)


def generated(rng: random.Random) -> str:
    words = [w for text, _ in POSITIVES for w in text.split()] + [w for t in NEGATIVES for w in t.split()]
    extras = [
        ":",
        "=",
        "@",
        "://",
        "-u",
        "'",
        '"',
        "is",
        "to",
        "MII",
        "-----BEGIN ",
        "密码",
        "是",
        "PIN",
        "eyJ",
        REDACTED,
    ]
    parts = []
    for _ in range(rng.randint(1, 14)):
        roll = rng.random()
        if roll < 0.12:
            parts.append(" " * rng.randint(0, 2) + key_body_line(rng) + " " * rng.randint(0, 1) + "\n")
        elif roll < 0.3:
            secret = rng.choice(PROVIDER_KEYS)
            parts.append(secret[: rng.randint(2, len(secret))])
        elif roll < 0.4:
            parts.append(rng.choice(extras))
        else:
            parts.append(rng.choice(words))
    text = rng.choice([" ", "", "\n", "_", "-", "="]).join(parts)
    return folded(text, rng) if rng.random() < 0.2 else text


CORPUS = [text for text, _ in POSITIVES] + list(NEGATIVES) + PROVIDER_KEYS


@pytest.mark.parametrize("text", CORPUS)
def test_the_corpus_as_without_pre_checks(text: str) -> None:
    for variant in variants(text):
        assert redact_secrets(variant) == every_pattern(variant), variant


def test_generated_texts_as_without_pre_checks() -> None:
    rng = random.Random(2026)
    redacted = 0
    for _ in range(4000):
        text = generated(rng)
        expected = every_pattern(text)
        assert redact_secrets(text) == expected, text
        redacted += expected != text
    assert redacted > 1000  # the texts do hold secrets, so the pre-checks are tested both ways


def test_key_bodies_without_a_header_are_still_found() -> None:
    rng = random.Random(7)
    for _ in range(200):
        lines = [key_body_line(rng) for _ in range(rng.randint(2, 4))]
        text = "the key:\n" + "\n".join("  " + line for line in lines) + "\nthanks"
        assert redact_secrets(text) == every_pattern(text)
    body = "\n".join(["AAAAB3NzaC1yc2EAAAADAQABAAABgQC" + "x7Yq" * 10] * 3) + "\n"
    assert redact_secrets(body).startswith(REDACTED)


# Each word check as the patterns state it, for any text.
BY_PATTERN = {
    "state": (redaction._may_state, lambda t: redaction._SECRET_WORDS.search(t) is not None),
    "assign": (
        redaction._may_assign,
        lambda t: ("=" in t or ":" in t) and redaction._ASSIGNMENT_WORDS.search(t) is not None,
    ),
    "head": (redaction._may_head, lambda t: ":" in t and redaction._HEADER_WORDS.search(t) is not None),
}


@pytest.mark.parametrize("name", sorted(BY_PATTERN))
def test_the_ascii_word_checks_say_yes_whenever_the_patterns_do(name: str) -> None:
    gate, by_pattern = BY_PATTERN[name]
    rng = random.Random(3)
    said_yes = 0
    for _ in range(3000):
        text = generated(rng).encode("ascii", errors="ignore").decode("ascii")
        if by_pattern(text):
            said_yes += 1
            assert gate(text, text.lower()), text
        assert gate(text, None) == by_pattern(text), text  # any other text: the pattern itself
    assert said_yes > 300


def test_token_literals_are_in_every_key_of_their_pattern() -> None:
    for secret in PROVIDER_KEYS:
        for (literals, _), pattern in zip(redaction._TOKENS, redaction._TOKEN_PATTERNS, strict=True):
            if pattern.search(secret) is not None:
                assert any(literal in secret for literal in literals), (secret, literals)
