"""The work one hook input can cause is bounded: token length, terms per query, characters
scanned. Asserted by counting work, never by timing it (bench/hostile_input.py times it)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.hooks.entry import run_hook
from memory_core.recall import query_plan, service
from memory_core.recall.query_plan import (
    MAX_QUERY_TERMS,
    MAX_TEXT_BYTES,
    MAX_TEXTS,
    build_plan,
    clip_text,
    is_continuation,
)
from memory_core.text import tokenize
from memory_core.text.query_features import query_terms
from memory_core.text.tokenize import MAX_TOKEN_CHARS, bound_tokens, features
from tests.factories import make_memory, seed

LONG_WORDS = {
    "letters": "a" * 60_000,
    "letters and digits": "x1" * 30_000,
    "dotted": "a." * 30_000,
    "hyphens": "a-" * 30_000,
    "underscores": "a_" * 30_000,
    "path": "a/" * 30_000,
    "url": "https://" + "a" * 60_000,
    "jwt-like": "-eyJ" * 15_000,
}
_RUN = re.compile(r"[a-z0-9._~:/?#@!$&*+,;=%'-]+")


class CountingPattern:
    """Stands in for the tokenizer's compiled scanner and counts what it is given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0
        self.chars = 0
        self.longest_run = 0

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        self.calls += 1
        self.chars += len(text)
        self.longest_run = max([self.longest_run, *(len(m) for m in _RUN.findall(text))])
        return self.pattern.finditer(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


@pytest.fixture
def scanner(monkeypatch: pytest.MonkeyPatch) -> CountingPattern:
    counting = CountingPattern(tokenize._TOKEN)
    monkeypatch.setattr(tokenize, "_TOKEN", counting)
    return counting


@pytest.mark.parametrize("name", list(LONG_WORDS))
def test_no_token_is_longer_than_the_bound(name: str, scanner: CountingPattern) -> None:
    text = LONG_WORDS[name]
    found = features(text)
    terms = query_terms(text)
    assert scanner.longest_run <= MAX_TOKEN_CHARS
    assert all(len(f) <= MAX_TOKEN_CHARS for f in found)
    assert all(len(t.feature) <= MAX_TOKEN_CHARS for t in terms)
    assert len(terms) <= 8  # the query side: one cut word (and its parts)
    assert sum(found.values()) <= MAX_TOKEN_CHARS  # the index side adds a path's ancestors


def test_bounding_keeps_every_ordinary_token() -> None:
    text = (
        "the deploy at /work/app/src/main.py uses https://example.com/a?b=c and db_port_5433; 数据库 在 /srv/data 上"
    ) * 50
    assert bound_tokens(text) == text
    long_path = "/" + "/".join(["segment"] * 60)  # 480 characters
    assert bound_tokens(long_path) == long_path[:MAX_TOKEN_CHARS]


def test_terms_of_one_text_are_bounded() -> None:
    numbers = " ".join(str(n) for n in range(5_000))
    chinese = "".join(chr(0x4E00 + i) for i in range(3_000))
    for text in (numbers, chinese):
        plan = build_plan([text])
        assert 0 < len(plan.focus) <= MAX_QUERY_TERMS
    ordinary = "which port does the staging database of the billing service listen on?"
    assert build_plan([ordinary]).focus == tuple(query_terms(ordinary))  # untouched below the bound


def test_a_bare_continuation_is_short() -> None:
    assert is_continuation("ok, continue please")
    assert not is_continuation("ok " * 1_000)


def _reference_clip(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    half = limit // 2
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[len(data) - (limit - half - 1) :].decode("utf-8", errors="ignore")
    return head + "\n" + tail


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab 中😀é\n"), max_size=400), limit=st.integers(8, 120))
def test_clip_text_is_the_same_without_encoding_the_middle(text: str, limit: int) -> None:
    assert clip_text(text, limit) == _reference_clip(text, limit)


def _prompt(text: str, earlier: list[str] | None = None) -> bytes:
    payload = {
        "schema": "memevo.hook/v1",
        "event": "user_prompt",
        "session_id": "s",
        "cwd": "/tmp",
        "prompt": text,
        "user_messages": earlier or [],
    }
    return json.dumps(payload).encode("utf-8")


@pytest.fixture
def recall_home(home: Path) -> Path:
    from memory_core import clock
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        seed(
            store,
            *(
                make_memory(
                    f"service {i} of the staging cluster listens on port {5400 + i}", origin="/w", at=clock.now()
                )
                for i in range(30)
            ),
        )
    return home


@pytest.mark.parametrize("size", [2_000, 20_000, 60_000])
def test_a_long_word_prompt_scans_a_bounded_amount(
    size: int, recall_home: Path, scanner: CountingPattern, monkeypatch: pytest.MonkeyPatch
) -> None:
    redacted: list[int] = []
    real = service.redact_secrets

    def counting(text: str) -> str:
        redacted.append(len(text))
        return real(text)

    monkeypatch.setattr(service, "redact_secrets", counting)
    result = run_hook(_prompt("a" * size, earlier=["x" * size] * 60), "user_prompt", None)
    assert result == ("", "")
    # At most MAX_TEXTS texts, each redacted from at most SCAN_TEXT_BYTES and tokenized from
    # at most MAX_TEXT_BYTES (plus the separator of its head and tail), whatever the size.
    assert len(redacted) <= MAX_TEXTS and max(redacted) <= service.SCAN_TEXT_BYTES
    assert scanner.chars <= MAX_TEXTS * (MAX_TEXT_BYTES + 1) and scanner.longest_run <= MAX_TOKEN_CHARS
    diagnostics = json.loads((recall_home / "last-recall.json").read_text(encoding="utf-8"))
    assert all(len(f) <= MAX_TOKEN_CHARS for f in diagnostics["plan"]["focus"])


def test_an_ordinary_long_message_is_still_planned(recall_home: Path) -> None:
    words = ("the deploy script runs after the tests pass so check the cache before changing the timeout " * 200)[
        :16_800
    ]
    assert run_hook(_prompt(words), "user_prompt", None) == ("", "")
    diagnostics = json.loads((recall_home / "last-recall.json").read_text(encoding="utf-8"))
    assert {"~deploy", "~cache", "~timeout"} <= set(diagnostics["plan"]["focus"])
    question = run_hook(_prompt("which port does service 7 of the staging cluster listen on?"), "user_prompt", None)
    assert "port 5407" in question.stdout


def test_plan_reads_no_more_than_its_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    real = query_plan.query_terms

    def counting(text: str) -> list[Any]:
        read.append(len(text.encode("utf-8")))
        return real(text)

    monkeypatch.setattr(query_plan, "query_terms", counting)
    build_plan(["é" * 100_000] * 100)
    assert len(read) <= MAX_TEXTS and max(read) <= MAX_TEXT_BYTES + 1
