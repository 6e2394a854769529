"""A question asking what the assistant said is answered by the reply, not by the request that
asked for it (memory_core.text.requests, memory_core.recall.replies; on every store backend)."""

from __future__ import annotations

import pytest

from cli.commands.recall_cmd import _render_claim
from memory_core.recall.query_plan import plan_query
from memory_core.recall.service import explain_claim, recall
from memory_core.text.requests import asks_reply, is_request
from memory_core.text.tokenize import normalize
from tests.support.recalled import ids
from tests.support.times import DAY, NOW

MINUTE = 60.0


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Which trails did you suggest for hiking with my dog?", True),
        ("What was in that stir-fry recipe you gave me?", True),
        ("What book did you recommend to me about habits?", True),
        ("Remind me of your suggestions for the Lisbon trip", True),
        ("你之前推荐的那本书叫什么？", True),
        ("你上次给我列的清单里有什么？", True),
        ("Which trails did my sister suggest?", False),  # what someone else said
        ("Can you suggest a few trails?", False),  # a request now, not a question about a reply
        ("What did I tell the landlord about the leak?", False),
        ("我妹妹推荐的书叫什么？", False),
    ],
)
def test_questions_asking_what_the_assistant_said(text: str, asks: bool) -> None:
    assert asks_reply(normalize(text)) is asks
    assert plan_query(text).asks_reply is asks


@pytest.mark.parametrize(
    ("content", "asking"),
    [
        ("Can you suggest a few hiking trails near Boulder that are dog friendly?", True),
        ("Any ideas for a quick weeknight dinner?", True),
        ("What should I pack for a week in Iceland?", True),
        ("Please list the steps to rotate the API key.", True),
        ("Recommend me a book on habits.", True),
        ("你能推荐几本关于习惯的书吗？", True),
        ("Sure: Mount Sanitas Trail (3.1 miles) and Betasso Preserve's Canyon Loop allow dogs.", False),
        ("I'd recommend Atomic Habits by James Clear.", False),  # the reply recommends
        ("Did the deploy finish?", False),  # a question, not put to the assistant
        ("I'm looking for a good book on habit formation.", False),
        ("我推荐《原子习惯》，很实用。", False),
        # a need told to the assistant
        ("Thanks. My sister is a vegetarian, so we'll need restaurant ideas that work for her.", True),
        ("I need some good gift suggestions for my dad.", True),
        ("我表妹吃素，所以得找些适合她的餐厅。", True),
        ("We need to fix the flaky login test before Friday.", False),
        ("我需要每天早上七点起床。", False),
        # a question put to the assistant before more of the person's words; not an offer
        ("Can you recommend some budget-friendly recipes for two people? We're trying to eat in more.", True),
        ("你能推荐几个菜谱吗？我们想在家做饭。", True),
        ("Here are five recipes: a chickpea curry and black bean tacos. Would you like a shopping list?", False),
        ("这几道菜都很简单。需要我再列一份购物清单吗？", False),
        ("I ran 8 miles today. Did the deploy finish? Yes, at noon.", False),
    ],
)
def test_requests_made_to_the_assistant(content: str, asking: bool) -> None:
    assert is_request(content) is asking


def conversation(add):
    t = NOW - 10 * DAY
    return {
        "ask": add("Can you suggest a few hiking trails near Boulder that are dog friendly?", at=t),
        "reply": add(
            "Sure: Mount Sanitas Trail (3.1 miles), Wonderland Lake Trail (1.5 miles) and Betasso Preserve "
            "all allow dogs on leash.",
            at=t + MINUTE,
        ),
        "later": add("I booked a cabin in Estes Park for the long weekend.", at=t + DAY),
    }


def test_the_reply_answers_what_the_assistant_suggested(add, reader) -> None:
    claims = conversation(add)
    question = "Which trails did you suggest for hiking with my dog?"
    assert ids(recall(reader.conn, question, now=NOW)) == [claims["reply"].id]
    # The request is what the words chose, and what explain says was set aside for the reply.
    dropped = explain_claim(reader.conn, question, claims["ask"].id, now=NOW)
    assert dropped["selected"] is False and dropped["reason"] == "request"
    assert "reply stated right after it" in dropped["detail"]
    taken = explain_claim(reader.conn, question, claims["reply"].id, now=NOW)
    assert taken["selected"] is True and taken["reply_to"] == claims["ask"].id
    assert "as the reply to request" in _render_claim(taken)[0]
    # Asked as a request of its own, or about what the trails are, the words choose as before.
    assert ids(recall(reader.conn, "Which dog friendly hiking trails near Boulder are there?", now=NOW))[0] == (
        claims["ask"].id
    )


def test_a_request_with_no_reply_after_it_stays(add, reader) -> None:
    ask = add("Can you suggest a good stir-fry recipe for a weeknight?", at=NOW - DAY)
    found = ids(recall(reader.conn, "What stir-fry recipe did you suggest?", now=NOW))
    assert found == [ask.id]
    # A next claim that is another request is no reply either.
    add("Could you also suggest a dessert?", at=NOW - DAY + MINUTE)
    assert ids(recall(reader.conn, "What stir-fry recipe did you suggest?", now=NOW)) == [ask.id]


def test_a_reply_already_chosen_drops_the_request_beside_it(add, reader) -> None:
    ask = add("Can you recommend a book about habits?", at=NOW - 3 * DAY)
    reply = add("I'd recommend Atomic Habits by James Clear: small habits, practical.", at=NOW - 3 * DAY + MINUTE)
    found = ids(recall(reader.conn, "What book about habits did you recommend?", now=NOW))
    assert found == [reply.id]
    assert ask.id not in found


def test_the_reply_to_a_need_told_to_the_assistant_answers(add, reader) -> None:
    t = NOW - 5 * DAY
    need = add(
        "Thanks. I'll be bringing my sister Maya, she's a vegetarian, "
        "so we'll need restaurant ideas that work for her.",
        at=t,
    )
    reply = add(
        "Portland is great for vegetarian food: try Farm Spirit, Blossoming Lotus, and the food carts on Hawthorne.",
        at=t + MINUTE,
    )
    question = "Which restaurants did you recommend for my sister?"
    assert ids(recall(reader.conn, question, now=NOW)) == [reply.id]
    assert explain_claim(reader.conn, question, need.id, now=NOW)["reason"] == "request"
    ask = add("我表妹小雨会跟我一起去，她吃素，所以得找些适合她的餐厅。", at=t + DAY)
    answer = add("成都的素食餐厅不少，可以试试文殊院附近的香积厨，还有玉林路的一些素食小馆。", at=t + DAY + MINUTE)
    assert ids(recall(reader.conn, "你给我表妹推荐了哪些餐厅？", now=NOW)) == [answer.id]
    assert ask.id not in ids(recall(reader.conn, "你给我表妹推荐了哪些餐厅？", now=NOW))
