"""The cheap pre-checks of redaction (which let most texts skip compiling and running the
costly patterns) never change what is redacted: with and without them, the same output."""

from __future__ import annotations

import random

import pytest

from memory_core.privacy import sanitize
from tests.hostile.secrets_corpus import NEGATIVES, POSITIVES, PROVIDER_KEYS


def ungated(text: str) -> str:
    for pattern, replacement, _ in sanitize._STEPS:
        text = pattern.sub(replacement, text)
    return text


def variants(text: str) -> list[str]:
    # Case changes and the characters Python's case-insensitive matching folds onto ASCII
    # letters (long s, Kelvin sign, dotless and dotted i) must not slip past a pre-check.
    folded = text.replace("s", "\u017f").replace("k", "\u212a").replace("i", "\u0131")
    return [text, text.upper(), text.lower(), text.swapcase(), folded, text.replace("i", "\u0130")]


TEXTS = (
    [text for text, _ in POSITIVES]
    + list(NEGATIVES)
    + PROVIDER_KEYS
    + [
        "When did Caroline go to the LGBTQ support group?",
        "my pin is 4821",
        "PIN: 9931",
        "pw=Xy7!pq",
        "the passcode reads hunter2Tr0ub4dor",
        "Authorization: Bearer abcdefghijklmnop1234",
        "X-Api-Key: 8f7a6b5c4d3e2f1a",
        "api-key: Zq8mW4tKp2Lx9Vb7",
        "postgres://user:s3cretPass@db:5432/app",
        "curl -u admin:pa55word https://x",
        "mysql -pS3cret db",
        "sshpass -p hunter2 ssh host",
        "密码是hunter2",
        "令牌为abc123XYZ",
        "use Xy7!pq as the password",
        "DB_PASSWORD=Zq8mW4tKp2Lx9Vb7",
        '{"client_secret": "Zq8mW4tKp2Lx9Vb7"}',
        "export AUTH_KEY=Zq8mW4tK-p2Lx9Vb7",
    ]
)


@pytest.mark.parametrize("text", TEXTS)
def test_gates_never_change_redaction(text: str) -> None:
    for variant in variants(text):
        assert sanitize.redact_secrets(variant) == ungated(variant), variant


def test_gates_on_random_mixtures() -> None:
    rng = random.Random(15)
    pieces = [w for t in TEXTS for w in t.split()] + [":", "=", "@", "://", "-u", "\n", "'", '"', "is", "to"]
    for _ in range(3000):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        for variant in variants(text)[:3]:
            assert sanitize.redact_secrets(variant) == ungated(variant), variant
