"""The query clean-up runs a pattern on a lower-case ASCII text only when the text holds one
of the words every match of it holds (``FRAMING_WORDS`` …): the result must be what running
all three patterns gives, for any text."""

from __future__ import annotations

import random
import re

from memory_core.text import vocabulary
from memory_core.text.asking import query_text, turned_to
from memory_core.text.tokenize import normalize
from memory_core.text.vocabulary import ASKS_TIME, ASPECT, FRAMING, RELATIVE_TIME, SELF_CORRECTION


def reference(text: str) -> str:
    """Every pattern run on every text."""
    normalized = normalize(text)
    corrections = list(SELF_CORRECTION.finditer(normalized))
    if corrections and corrections[-1].end() < len(normalized.rstrip()):
        normalized = normalized[corrections[-1].end() :]
    normalized = turned_to(normalized)
    if ASKS_TIME.search(normalized):
        normalized = ASPECT.sub(" ", normalized)
    return RELATIVE_TIME.sub(" ", FRAMING.sub(" ", normalized))


PATTERNS = (
    (vocabulary.SELF_CORRECTION, vocabulary.SELF_CORRECTION_WORDS),
    (vocabulary.PIVOT, vocabulary.PIVOT_WORDS),
    (vocabulary.FRAMING, vocabulary.FRAMING_WORDS),
    (vocabulary.RELATIVE_TIME, vocabulary.RELATIVE_TIME_WORDS),
    (vocabulary.ASPECT, vocabulary.ASPECT_WORDS),
    (vocabulary.ASKS_TIME, vocabulary.ASKS_TIME_WORDS),
)
# The words and marks the patterns are made of, some case and folding variants (the dotless
# i, the long s, the Kelvin sign, full-width letters) and Chinese framing.
PIECES = sorted(
    {w for pattern, _ in PATTERNS for w in re.findall(r"[a-z]+", pattern.pattern) if len(w) > 1}
    | {"i", "u", "we", "me", "you", "to", "is", "was", "my", "the", "of", "about", "port", "sqlite", "deploy"}
    | {"REMEMBER", "Last Time", "remınd", "ſay", "\u212aind", "ｔｏｄａｙ", "WAIT", "Hold On"}
    | {"还记得", "你知道", "我想问一下：", "最近", "今天", "其实我的问题是", "等等，", "多少"}
    # A match of each English alternative, whole.
    | {"do you still remember", "u remember", "remember when", "please remind me", "what did we decide"}
    | {"what do you know", "tell me", "how many", "which kinds of", "do you have any notes about"}
    | {"these days", "the other day", "every morning", "what i actually needed to ask was"}
    | {"my real question is", "sorry, i meant to ask", "wait, ", "hold on:", "what i want to ask is"}
    | {"by the way, ", "BTW: ", "对了，", "话说回来，", "言归正传，"}
    | {"what did i say", "what do we mention", "what did we agree", "what sorts of", "which type of"}
    | {"learning", "running", "started learning", "when did i start running", "how long ago did i quit smoking"}
    | {"which came first", "two weeks ago", "can you recommend a good", "any tips", "how long has it been"}
)
MARKS = ["", " ", "  ", "\n", ", ", ". ", "? ", "! ", ": ", "'", "-", "?", "."]


def generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 12)):
            parts.append(rng.choice(PIECES))
            parts.append(rng.choice(MARKS) if rng.random() < 0.3 else " ")
        texts.append("".join(parts).strip() if rng.random() < 0.8 else "".join(parts))
    return texts


def test_every_generated_text_is_cleaned_up_as_by_every_pattern() -> None:
    texts = generated(4000, 15)
    matched = {id(p): 0 for p, _ in PATTERNS}
    skipped = 0
    for text in texts:
        assert query_text(text) == reference(text), text
        normalized = normalize(text)
        for pattern, words in PATTERNS:
            matched[id(pattern)] += bool(pattern.search(normalized))
            skipped += normalized.isascii() and not any(w in normalized for w in words)
    # The corpus exercises every pattern, and the pre-check skips some of them.
    assert all(n > 100 for n in matched.values()), matched
    assert skipped > 1000


def test_every_ascii_match_holds_one_of_its_words() -> None:
    """Stronger than the outputs agreeing: no pattern matches an ASCII text its words miss."""
    for text in generated(4000, 16):
        normalized = normalize(text)
        if not normalized.isascii():
            continue
        for pattern, words in PATTERNS:
            for match in pattern.finditer(normalized):
                if match.group():
                    assert any(w in match.group() for w in words), (pattern.pattern[:40], match.group())


# Questions as people ask them: framing, relative time, self-corrections, and none of these.
QUESTIONS = (
    "When did Caroline go to the support group?",
    "What did we decide about the staging database port?",
    "Do you remember what I said about the deploy script last time?",
    "Can you remind me which branch the release is cut from?",
    "Wait, no, I meant the PostgreSQL timeout, not the SQLite one",
    "What is Melanie's favourite way to relax after work these days?",
    "Yesterday I told you about the cache version; what was it again?",
    "Hold on, actually use the test server instead",
    "How long has Jon been learning to dance?",
    "So what did we say about the thing we were going to do next time?",
    "Tell me again what port the API listens on today",
    "Remind me: did we ever fix the flaky login test?",
    "Which books has she read recently?",
    "What ORM is the ecommerce-api currently using, and what is it right now at the moment?",
    "What does the team use for migrations, Alembic or something else?",
    "I forgot, what was the name of the library we picked for retries?",
    "Is the config.toml in the project root or under ~/.config?",
    "Every time I run make test it fails on CI, what did we find last week?",
    "Not the staging one, sorry, the production database password policy",
    "what's the plan for tomorrow's release",
    "Did I mention where my cousin lives?",
    "How long has it been since I started learning Spanish?",
    "When did I stop drinking coffee, two weeks ago?",
    "Why did I start running?",
    "Can you recommend a good book on Roman history?",
)


def test_questions_as_people_ask_them_are_cleaned_up_as_by_every_pattern() -> None:
    for question in QUESTIONS:
        for variant in (question, question.lower(), question.upper()):
            assert query_text(variant) == reference(variant), variant
