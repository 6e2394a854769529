"""Values that state an attribute without naming it: "my bike is blue" answers "what colour
is my bike?", "花了2300元" answers "多少钱", and a question that only speaks of colours asks
for none (memory_core.text.value_classes)."""

from __future__ import annotations

import pytest

from memory_core.recall.query_plan import build_plan
from memory_core.recall.service import recall
from memory_core.text.query_features import query_terms
from memory_core.text.tokenize import features, normalize
from memory_core.text.value_classes import asked_value, held_values, is_value_class
from tests.support.times import NOW


@pytest.mark.parametrize(
    ("text", "classes"),
    [
        ("我的自行车是蓝色的。", ["=color"]),
        ("My bike is blue.", ["=color"]),
        ("我的自行车花了2300元。", ["=cost"]),
        ("价格三千元", ["=cost"]),
        ("It was $40 at the market.", ["=cost"]),
        ("the plan costs 12 euros a month", ["=cost"]),
        ("a grey 40 dollar jacket", ["=color", "=cost"]),
        ("The deploy runs on port 8080.", []),
        ("3块硬盘", []),  # 块 alone counts pieces, not money
        ("bluetooth and redis", []),  # whole words only
    ],
)
def test_values_a_claim_holds(text: str, classes: list[str]) -> None:
    assert held_values(normalize(text)) == classes


def test_the_index_keeps_the_value_beside_its_class_once() -> None:
    counts = features("My bike is blue, blue as the sea.")
    assert counts["blue"] == 2 and counts["=color"] == 1
    counts = features("我的自行车是蓝色的")
    assert counts["蓝色"] == 1 and counts["=color"] == 1 and "~color" not in counts
    assert all(not is_value_class(f) for f in features("The colour of the bike"))


@pytest.mark.parametrize(
    ("concept", "text", "value"),
    [
        ("~color", "我的自行车是什么颜色？", "=color"),
        ("~color", "what colour is my bike?", "=color"),
        ("~color", "which colors are the team's jerseys?", "=color"),
        ("~color", "why did she choose colors and patterns for the bowl?", None),
        ("~cost", "我的笔记本电脑多少钱买的？", "=cost"),
        ("~cost", "how much did my bike cost?", "=cost"),
        ("~cost", "我的手机和笔记本电脑哪个更贵？", "=cost"),
        ("~cost", "what was the price of the tickets?", "=cost"),
        ("~cost", "we should cut the cost of the build", None),
        ("~port", "what port does it use?", None),
    ],
)
def test_questions_that_ask_for_a_value(concept: str, text: str, value: str | None) -> None:
    assert asked_value(concept, normalize(text)) == value


def test_an_asked_value_is_an_alternative_to_the_attribute() -> None:
    terms = query_terms("what colour is my bike?")
    colour = next(t for t in terms if t.feature == "~color")
    value = next(t for t in terms if t.feature == "=color")
    assert colour.group and value.group == colour.group and value.attribute and value.unit != colour.unit
    plain = query_terms("why did she choose colours and patterns for the bowl?")
    assert not any(is_value_class(t.feature) for t in plain)
    assert all(t.group == 0 for t in plain)
    # An "or" before it keeps its own group; the value joins the attribute's.
    joined = query_terms("what colour is the bike or the car?")
    groups = {t.feature: t.group for t in joined}
    assert groups["=color"] == groups["~color"] and groups["bike"] == groups["car"] != groups["~color"]
    assert build_plan(["我的自行车是什么颜色？"]).focus[-1].feature == "=color"


THINGS = (
    "My phone's colour is black.",
    "My phone's brand is Samsung.",
    "My bike is blue.",
    "My bike cost 2300 dollars.",
    "My laptop is a Lenovo.",
)


def test_a_value_answers_the_attribute_a_short_question_names(add, reader) -> None:
    claims = [add(text) for text in THINGS]
    # The bike's claim states a colour without the word; the phone's states the word for
    # another subject: only the bike's answers, and no complement adds the phone's colour.
    assert [c.memory_id for c in recall(reader.conn, "what colour is my bike?", now=NOW).claims] == [claims[2].id]
    assert [c.memory_id for c in recall(reader.conn, "how much did my bike cost?", now=NOW).claims] == [claims[3].id]
    # Speaking of colours is not asking one: a claim holding some colour does not answer.
    found = recall(reader.conn, "why do phones come in so many colours?", now=NOW).claims
    assert claims[2].id not in {c.memory_id for c in found}


def test_chinese_values_and_places(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "我的手机的颜色是黑色。",
            "我的自行车是蓝色的。",
            "我的笔记本电脑是联想的。",
            "我的笔记本电脑价格是6999元。",
            "我的笔记本电脑是在京东买的。",
            "实验小学的地址是海淀区中关村大街27号。",
        )
    ]
    assert [c.memory_id for c in recall(reader.conn, "我的自行车是什么颜色？", now=NOW).claims] == [claims[1].id]
    # "多少钱" asks the cost: of the laptop's three claims only the price answers.
    assert [c.memory_id for c in recall(reader.conn, "我的笔记本电脑多少钱买的？", now=NOW).claims] == [claims[3].id]
    # "哪个更贵" compares costs: the price and the colour's claims are not alike.
    found = recall(reader.conn, "我的手机和笔记本电脑哪个更贵？", now=NOW).claims
    assert claims[3].id in {c.memory_id for c in found} and claims[0].id not in {c.memory_id for c in found}
    # "在什么地方" asks where, as 在哪里 does: the answer is a place, not the word 地方.
    assert [c.memory_id for c in recall(reader.conn, "实验小学在什么地方？", now=NOW).claims] == [claims[5].id]
