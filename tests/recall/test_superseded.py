"""A question asking what holds now is answered by the newest statement of it: an older claim
of the same origin and kind answering the same words is superseded (on every store backend)."""

from __future__ import annotations

import pytest

from memory_core.recall.service import explain_claim, recall
from memory_core.text.grammar import asks_current
from memory_core.text.query_features import query_terms
from tests.support.recalled import ids
from tests.support.times import DAY, NOW


@pytest.mark.parametrize(
    ("text", "current"),
    [
        ("what is my current 5k personal best?", True),
        ("which phone carrier am i with now?", True),
        ("which redis version do we run now?", True),  # the wh-phrase's head is "version"
        ("what is the current status of the stripe webhook integration?", True),
        ("我现在用什么软件学外语？", True),
        ("我目前住在哪里？", True),
        # a list of things that may all hold now
        ("what books am i currently reading?", False),
        ("what are my current hobbies?", False),
        ("which programming languages do i use now?", False),
        ("我现在住过哪些城市？", False),
        ("how many tickets are open now?", False),
        ("can you remind me what my current 5k personal best is?", True),  # a question's framing
        # a request asks for an act
        ("can you fix the login bug now?", False),
        ("should i merge the pr now?", False),
        # "current" of an identifier or a flag, 现在 of 出现在
        ("what does the current-user endpoint return?", False),
        ("what does git branch --show-current print?", False),
        ("这个bug出现在哪里？", False),
        # no question
        ("now let's fix the redis timeout", False),
        ("currently the build is red.", False),
        ("现在开始重构", False),
        # no word of the present
        ("what was my 5k personal best?", False),
    ],
)
def test_a_question_asking_what_holds_now(text: str, current: bool) -> None:
    assert asks_current(text) is current


def test_current_is_time_said_relative_to_now_not_a_subject() -> None:
    assert [t.feature for t in query_terms("What is my current job?")] == ["~job", "=job"]
    # … but not inside an identifier or a flag
    assert "current-user" in [t.feature for t in query_terms("what does the current-user endpoint return?")]
    assert "show-current" in [t.feature for t in query_terms("what does git branch --show-current print?")]


def test_the_newest_statement_answers_what_holds_now(add, reader) -> None:
    old = add("My personal best for the 5k is 27:40, set at the Turkey Trot.", at=NOW - 60 * DAY)
    new = add("Great news, I ran the spring 5k in 25:55 this morning, a new personal best!", at=NOW - 5 * DAY)
    add("I volunteer at the food bank every other Saturday.", at=NOW - 2 * DAY)
    assert ids(recall(reader.conn, "What is my current 5k personal best?", now=NOW)) == [new.id]
    verdict = explain_claim(reader.conn, "What is my current 5k personal best?", old.id, now=NOW)
    assert verdict["reason"] == "superseded"
    assert "newer claim" in verdict["detail"]
    # Without "current" both statements answer, best first.
    assert set(ids(recall(reader.conn, "What was my 5k personal best?", now=NOW))) == {old.id, new.id}


def test_a_list_asked_now_keeps_every_statement(add, reader) -> None:
    first = add("I'm reading Project Hail Mary and loving it.", at=NOW - 30 * DAY)
    second = add("I'm also reading Piranesi, a few pages a night.", at=NOW - 3 * DAY)
    assert set(ids(recall(reader.conn, "What books am I currently reading?", now=NOW))) == {first.id, second.id}


def test_another_origin_is_another_fact(add, reader) -> None:
    api = add("The billing API runs on Python 3.9.", origin="/work/billing", at=NOW - 40 * DAY)
    web = add("The billing API runs on Python 3.12.", origin="/work/web", at=NOW - 2 * DAY)
    found = set(ids(recall(reader.conn, "Which Python version does the billing API run on now?", now=NOW)))
    assert found == {api.id, web.id}


def test_a_claim_answering_more_of_the_question_stays(add, reader) -> None:
    older = add("Our team standup is at 9:30 every morning in the Denver office.", at=NOW - 40 * DAY)
    newer = add("The team standup is at 10:15 now.", at=NOW - 4 * DAY)
    question = "When is the team standup in the Denver office now?"
    assert older.id in ids(recall(reader.conn, question, now=NOW))
    # The newer claim does not speak of the Denver office: it supersedes nothing there.
    assert explain_claim(reader.conn, question, older.id, now=NOW)["reason"] is None
    assert explain_claim(reader.conn, question, newer.id, now=NOW)["reason"] != "superseded"


def test_one_shared_word_says_nothing_about_being_the_same_fact(add, reader) -> None:
    mine = add("I live in Austin, in a small house near the lake.", at=NOW - 90 * DAY)
    brother = add("My brother lives in Chicago now.", at=NOW - 3 * DAY)
    # Both hold only "live": the newer is no newer statement of the older.
    assert set(ids(recall(reader.conn, "Where do I live now?", now=NOW))) == {mine.id, brother.id}
