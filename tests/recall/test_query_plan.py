"""The conversation-aware query plan."""

from __future__ import annotations

import pytest

from memory_core.recall.query_plan import (
    MAX_BACKGROUND_TERMS,
    MAX_TEXT_BYTES,
    MAX_TEXTS,
    build_plan,
    clip_text,
    conversation_slots,
)
from memory_core.recall.service import recall
from tests.support.times import DAY, T0


def shape(texts: list[str]) -> tuple[str, list[str], list[str]]:
    plan = build_plan(texts)
    return plan.mode, [t.feature for t in plan.focus], [t.feature for t in plan.context]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["SQLite"], ("standalone", ["sqlite"], [])),
        (["SQLite", "port?"], ("follow_up", ["~port", "=port"], ["sqlite"])),
        (["SQLite", "port?", "auth?"], ("follow_up", ["~auth"], ["sqlite"])),
        (["SQLite", "port?", "auth?", "continue"], ("inherited", ["~auth"], ["sqlite"])),
        (["SQLite", "port?", "auth?", "continue", "继续"], ("inherited", ["~auth"], ["sqlite"])),
        (["continue"], ("empty", [], [])),
        (["SQLite", "new topic", "continue"], ("reset", [], [])),
        (["SQLite", "never mind, Redis port?"], ("standalone", ["redi", "~port", "=port"], [])),
        (["SQLite", "PostgreSQL?"], ("standalone", ["postgresql"], [])),
        (["SQLite", "does it support WAL?"], ("follow_up", ["support", "wal"], ["sqlite"])),
        (["SQLite", "5433?"], ("follow_up", ["5433"], ["sqlite"])),
        (["SQLite", "status?"], ("follow_up", ["~status"], ["sqlite"])),
        (["SQLite", "猫?", "continue"], ("inherited", ["猫"], [])),
        (["数据库", "端口呢？"], ("follow_up", ["~port"], ["~database"])),
        (["Do you remember the memory limit?"], ("standalone", ["~memory", "~limit"], [])),
        (["你还记得端口是多少吗"], ("standalone", ["~port", "=port"], [])),
    ],
)
def test_plans(texts: list[str], expected: tuple[str, list[str], list[str]]) -> None:
    assert shape(texts) == expected


def test_context_does_not_accumulate_facets() -> None:
    mode, focus, context = shape(["SQLite", "port?", "timeout?", "auth?"])
    assert context == ["sqlite"] and focus == ["~auth"]


def test_only_the_last_six_slots_count() -> None:
    # Bare continuations in a row share one slot, so they never push the subject out.
    assert shape(["Redis"] + ["continue"] * 20)[1] == ["redi"]
    topics = ["Redis", "port?", "kafka", "topics?", "postgres", "timeout?", "continue"]
    assert shape(topics) == ("inherited", ["~timeout"], ["postgr"])
    assert shape(["Redis"] + ["and the timeout?", "continue"] * 2) == ("inherited", ["~timeout"], ["redi"])
    assert shape(["Redis"] + ["and the timeout?", "continue"] * 3)[2] == []  # Redis left the window
    six_later = ["Redis", "kafka", "postgres", "nginx", "mysql", "sqlite", "port?"]
    assert shape(six_later) == ("follow_up", ["~port", "=port"], ["sqlite"])
    assert conversation_slots(["a"] * 10) == ["a"] * MAX_TEXTS


def test_clip_text_keeps_head_and_tail_whole_characters() -> None:
    text = "开头" + "字" * 2000 + "结尾问题"
    clipped = clip_text(text)
    assert len(clipped.encode("utf-8")) <= MAX_TEXT_BYTES
    assert clipped.startswith("开头") and clipped.endswith("结尾问题")
    assert clip_text("short") == "short"


def background(texts: list[str]) -> list[str]:
    return [t.feature for t in build_plan(texts).background]


def test_earlier_words_the_plan_does_not_hold_are_background() -> None:
    # The most recent earlier text first; generic words ("config") and the focus left out.
    texts = ["the billing config uses Postgres", "it moved to Kafka", "what about the Kafka retries?"]
    assert background(texts) == ["move", "bill", "postgr"]
    # After a reset nothing earlier is background, and a fresh question has none.
    assert background(["the billing service", "new topic: Kafka retries?"]) == []
    assert background(["Kafka retries?"]) == []
    # The context (SQLite) is not background; the earlier facet (port) is.
    assert background(["SQLite", "port?", "auth?"]) == ["~port"]


def test_background_is_bounded() -> None:
    wall = " ".join(f"word{i}x" for i in range(300))
    assert len(background([wall, "Kafka retries?"])) == MAX_BACKGROUND_TERMS


def test_the_conversations_earlier_words_support_a_partial_answer(add, reader) -> None:
    sunday = add("On Sundays mom makes pancakes, coffee and orange juice for the family")
    add("The cafe on Main Street serves coffee and toast")
    add("Toast with butter and jam is a classic breakfast")
    add("The cafe has jam from the farm")
    juice = add("Orange juice on Sunday mornings is mom's rule")
    question = "I had pancakes and coffee, with toast, butter and jam, at the cafe"
    alone = recall(reader.conn, question, now=T0 + DAY)
    assert sunday.id not in {c.memory_id for c in alone.claims}
    # Earlier, the user spoke of mom's orange juice on Sundays: the pancake claim now covers
    # enough of the conversation. A claim holding only the earlier words is no answer.
    talk = recall(reader.conn, question, context=["My mom makes us orange juice every Sunday"], now=T0 + DAY)
    chosen = {c.memory_id for c in talk.claims}
    assert sunday.id in chosen
    assert juice.id not in chosen
