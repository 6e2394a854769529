"""Complementary evidence: the claim answering what the chosen claims left open, about the same thing."""

from __future__ import annotations

import pytest

from memory_core.recall import complement
from memory_core.recall.service import explain_claim, recall
from tests.support.recalled import ids
from tests.support.times import NOW


def test_a_joined_question_gets_both_facts(add, reader) -> None:
    place = add("The billing job runs on host atlas-7")
    port = add("atlas-7 exposes the admin port 9443")
    add("The search cluster exposes port 9200")
    add("The billing job retries three times")
    result = recall(reader.conn, "billing job host port?", now=NOW)
    assert ids(result) == [place.id, port.id]
    chosen = {c["id"]: c for c in result.diagnostics["candidates"]}
    assert chosen[port.id].get("complement") is True
    assert chosen[place.id].get("complement") is None


def test_the_complement_must_be_about_the_same_thing(add, reader) -> None:
    place = add("The billing job runs on host atlas-7")
    add("The search cluster on host orion exposes port 9200")
    # Answers the open part (the port) but shares nothing with the chosen claim.
    assert ids(recall(reader.conn, "billing job host port?", now=NOW)) == [place.id]


def test_chinese_two_hop_question(add, reader) -> None:
    add("我将要参加金融科技精英论坛。")
    where = add("金融科技精英论坛的地点是北京。")
    content = add("金融科技精英论坛的主要内容是探讨金融科技发展趋势。")
    add("模型艺术盛宴的主要内容是展示精选模型作品。")
    add("模型艺术盛宴的地点是广东深圳。")
    result = recall(reader.conn, "那个地点是北京的活动，主要内容是什么？", now=NOW)
    assert ids(result) == [where.id, content.id]


def test_a_person_and_an_attribute(add, reader) -> None:
    age = add("我叔叔今年61岁了。")
    work = add("我叔叔在广州工作呢。")
    add("我的下属在江苏南京工作呢。")
    add("我的上司今年45岁。")
    assert ids(recall(reader.conn, "那个61岁的人是在哪里工作的呢？", now=NOW)) == [age.id, work.id]


def test_nothing_open_means_no_complement(add, reader) -> None:
    port = add("SQLite listens on port 5432 in the test harness")
    add("SQLite backups run nightly in the test harness")
    assert ids(recall(reader.conn, "SQLite port?", now=NOW)) == [port.id]


def test_explain_names_a_complement(add, reader) -> None:
    add("The billing job runs on host atlas-7")
    port = add("atlas-7 exposes the admin port 9443")
    verdict = explain_claim(reader.conn, "billing job host port?", port.id, now=NOW)
    assert verdict["selected"] is True and verdict["complement"] is True


def test_bridge_thresholds() -> None:
    assert 0 < complement.MIN_CONCEPT_BRIDGE_SHARE < complement.MIN_BRIDGE_SHARE <= 0.5


def test_two_facts_that_only_answer_together(add, reader) -> None:
    # Neither claim matches enough of the question alone: the question's weight is split
    # between the bank manager and the phone number. Together, about the same boss, they do.
    boss = add("我的上司是银行的行长。")
    phone = add("我上司的联系电话是13651039007。")
    add("我叔叔的电话是18486487257。")
    add("我表姐是医生。")
    add("我叔叔今年61岁了。")
    question = "那个职位是银行行长的人，其联系电话的后5位之和是多少？"
    assert ids(recall(reader.conn, question, now=NOW)) == [boss.id, phone.id]
    # An e-mail address of somebody else is no second fact about the boss, and the boss
    # claim alone answers too little of the question.
    add("我表姐的邮箱地址是cousin0815@example.com。")
    assert recall(reader.conn, "那个职位是银行行长的人，其邮箱地址的后缀是多少？", now=NOW).claims == []


# A claim naming the subject without the attribute asked anchors a pair with a claim about
# what it says the subject is: the partner's own subject (what it says before the attribute)
# must be the anchor's; the anchor's other words (a city, a year) do not count against it.
# Each case: the claims, the question, and the claims (by position) recall returns.
PAIRS_THROUGH_WHAT_THE_SUBJECT_IS = [
    (
        [
            "我的车是一辆特斯拉Model 3。",
            "特斯拉Model 3的颜色是红色。",
            "我的摩托车是雅马哈的。",
            "雅马哈摩托车的颜色是黑色。",
        ],
        "我的车是什么颜色的？",
        [0, 1],
    ),
    (
        ["我女儿的学校是实验小学。", "实验小学的地址是海淀区中关村大街27号。", "首都图书馆的地址是西城区。"],
        "我女儿学校的地址是什么？",
        [0, 1],
    ),
    (
        ["My car is a Tesla I bought in Berlin.", "The Tesla is blue.", "My friend's Honda is white."],
        "what colour is my car?",
        [0, 1],
    ),
    (
        ["我女儿的学校是北京市海淀区实验小学。", "实验小学的地址是中关村大街27号。", "首都图书馆的地址是西城区。"],
        "我女儿学校的地址是什么？",
        [0, 1],
    ),
    # a colour of something else, or of something the two claims only both mention
    (["我的车是一辆特斯拉Model 3。", "雅马哈摩托车的颜色是黑色。"], "我的车是什么颜色的？", []),
    (["My car is a Tesla I bought in Berlin.", "The Honda I rented in Berlin is red."], "what colour is my car?", []),
    (["我的车是在杭州买的特斯拉。", "我在杭州租的本田是红色的。"], "我的车是什么颜色？", []),
    (["My car is parked in the garage.", "The garage door is green."], "what colour is my car?", []),
    (["My car is a Tesla.", "My friend's Tesla is white."], "what colour is my car?", []),
]


@pytest.mark.parametrize(("claims", "question", "expected"), PAIRS_THROUGH_WHAT_THE_SUBJECT_IS)
def test_a_pair_through_what_the_anchor_says_the_subject_is(
    add, reader, claims: list[str], question: str, expected: list[int]
) -> None:
    added = [add(text) for text in claims]
    assert ids(recall(reader.conn, question, now=NOW)) == [added[i].id for i in expected]
