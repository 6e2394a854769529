"""The time a question names, read from its words, and the span it covers in the local calendar."""

from __future__ import annotations

import time

import pytest

from memory_core.text.time_anchor import LAST, describe, find, question_of, read, read_window, span

# Monday 7 December 2026, 17:00 local time.
MONDAY = time.mktime((2026, 12, 7, 17, 0, 0, 0, 0, -1))


def day(year: int, month: int, d: int) -> float:
    return time.mktime((year, month, d, 0, 0, 0, 0, 0, -1))


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("what did i do yesterday?", ("day", -1)),
        ("what did we deploy last night?", ("day", -1)),
        ("what did i do the day before yesterday?", ("day", -2)),
        ("what did we fix this morning?", ("day", 0)),
        ("what did we work on last week?", ("week", -1)),
        ("what did i accomplish this week?", ("week", 0)),
        ("where did we go last weekend?", ("weekend", -1)),
        ("what did i read last month?", ("month", -1)),
        ("what changed last year?", ("year", -1)),
        ("what did we discuss last monday?", ("weekday", 0, LAST)),
        ("what did we ship on friday?", ("weekday", 4, LAST)),
        ("what was i up to two days ago?", ("ago", 2 * 86_400.0, 86_400.0)),
        ("what did i buy a couple of days ago?", ("ago", 2 * 86_400.0, 86_400.0)),
        ("what did i buy in the past 3 days?", ("since", 3 * 86_400.0)),
        ("what happened in the last week", ("since", 7 * 86_400.0)),
        ("what have we been working on lately?", ("recent", 14 * 86_400.0)),
        ("what painting did melanie show to caroline on october 13, 2023?", ("date", 2023, 10, 13)),
        ("what did gina find on 1 february, 2023?", ("date", 2023, 2, 1)),
        ("what happened on the 3rd of may?", ("date", 0, 5, 3)),
        ("what setback did melanie face in october 2023?", ("date", 2023, 10, 0)),
        ("did melanie go camping in june?", ("date", 0, 6, 0)),
        ("which bugs did we fix in 2025?", ("date", 2025, 0, 0)),
        ("what did we do on 2026-12-01?", ("date", 2026, 12, 1)),
        # Chinese
        ("我昨天做了什么？", ("day", -1)),
        ("前天我们聊了什么？", ("day", -2)),
        ("上周我们干了啥？", ("week", -1)),
        ("上周三我们开了什么会？", ("weekday", 2, -1)),
        ("上个月我学了什么？", ("month", -1)),
        ("去年我去了哪里？", ("year", -1)),
        ("两个月前我在做什么？", ("ago", 2 * 30.44 * 86_400.0, 30.44 * 86_400.0 / 2 + 2 * 30.44 * 86_400.0 / 4)),
        ("三天前我买了什么？", ("ago", 3 * 86_400.0, 86_400.0 / 2 + 3 * 86_400.0 / 4)),
        ("2023年10月我去了哪里？", ("date", 2023, 10, 0)),
        ("我2023年10月13号做了什么？", ("date", 2023, 10, 13)),
        ("我10月13号做了什么？", ("date", 0, 10, 13)),
        ("最近我在忙什么？", ("recent", 14 * 86_400.0)),
    ],
)
def test_the_time_a_question_names(text: str, anchor: tuple) -> None:
    assert read(text) == anchor


@pytest.mark.parametrize(
    "text",
    [
        # the future asks about plans, which no claim's date answers
        "what's planned for tomorrow?",
        "what do we ship next week?",
        "明天我要做什么？",
        "下个月的会议在哪里？",
        # a date without a year, outside a question of the past, is no time asked about
        "what's due on monday?",
        "what's happening in june?",
        "我10月13号要做什么？",
        # a date that is what a claim states, after a copula
        "whose birthday is on july 19?",
        "the party was on july 19, who came?",
        "那个生日是07月19日的人做了什么？",
        # "may" alone is a verb; a version is no year; "how long ago" names no distance
        "you may 5 times retry it?",
        "what changed in 2023.10?",
        "how long ago did i get my cat?",
        "how many days ago did i run the half marathon?",
        # two different times: each event is asked on its own, no one time is the question's
        "did i move in 2021 or in 2022?",
        # nothing of time
        "what port does the api listen on?",
        "",
    ],
)
def test_no_time_is_read(text: str) -> None:
    assert read(text) is None


def test_the_question_is_the_sentence_that_asks() -> None:
    noisy = "刚刚看到活动日程。昨晚看的那个设计方案，感觉不错。实际上，我真正的问题是：主要内容是什么？"
    assert question_of(noisy)[0] == "实际上，我真正的问题是：主要内容是什么？"
    assert read(noisy) is None
    assert read("i deployed a fix yesterday. what changed in the cache?") is None
    # the position is the whole text's
    text = "see the notes. what did we do last week?"
    anchor, (start, end) = find(text)
    assert (anchor, text[start:end]) == (("week", -1), "last week")
    assert read("what did we do yesterday? thanks.") == ("day", -1)


@pytest.mark.parametrize(
    ("anchor", "start", "end"),
    [
        (("day", -1), day(2026, 12, 6), day(2026, 12, 7)),
        (("day", 0), day(2026, 12, 7), day(2026, 12, 8)),
        (("week", -1), day(2026, 11, 30), day(2026, 12, 7)),
        (("week", 0), day(2026, 12, 7), day(2026, 12, 14)),
        (("weekend", -1), day(2026, 12, 5), day(2026, 12, 7)),
        (("month", -1), day(2026, 11, 1), day(2026, 12, 1)),
        (("month", -2), day(2026, 10, 1), day(2026, 11, 1)),
        (("year", -1), day(2025, 1, 1), day(2026, 1, 1)),
        # the last Monday before today is a week back; the last Friday three days back
        (("weekday", 0, LAST), day(2026, 11, 30), day(2026, 12, 1)),
        (("weekday", 4, LAST), day(2026, 12, 4), day(2026, 12, 5)),
        # 上周三: Wednesday of last week
        (("weekday", 2, -1), day(2026, 12, 2), day(2026, 12, 3)),
        (("date", 2023, 10, 13), day(2023, 10, 13), day(2023, 10, 14)),
        (("date", 2023, 10, 0), day(2023, 10, 1), day(2023, 11, 1)),
        (("date", 2025, 0, 0), day(2025, 1, 1), day(2026, 1, 1)),
        # without a year: the last such month or day not after today
        (("date", 0, 6, 0), day(2026, 6, 1), day(2026, 7, 1)),
        (("date", 0, 12, 25), day(2025, 12, 25), day(2025, 12, 26)),
        (("date", 0, 12, 7), day(2026, 12, 7), day(2026, 12, 8)),
        (("since", 3 * 86_400.0), MONDAY - 3 * 86_400.0, MONDAY + 1.0),
    ],
)
def test_spans_in_the_local_calendar(anchor: tuple, start: float, end: float) -> None:
    assert span(anchor, MONDAY) == (start, end)


def test_a_distance_from_now_is_about_that_far() -> None:
    start, end = span(read("what was i up to two days ago?"), MONDAY)
    assert start < MONDAY - 2 * 86_400.0 < end
    assert (start, end) == (MONDAY - 3 * 86_400.0, MONDAY - 86_400.0)
    # about two months ago: five to nine weeks or so, never today
    start, end = span(read("what did i do about two months ago?"), MONDAY)
    assert MONDAY - 95 * 86_400.0 < start < MONDAY - 85 * 86_400.0
    assert MONDAY - 35 * 86_400.0 < end < MONDAY - 25 * 86_400.0


def test_described_in_dates() -> None:
    assert describe(("day", -1), MONDAY) == "2026-12-06"
    assert describe(("week", -1), MONDAY) == "2026-11-30 to 2026-12-06"
    assert describe(("since", 86_400.0), MONDAY) == "2026-12-06 17:00 to 2026-12-07 17:00"


@pytest.mark.parametrize(
    ("text", "only"),
    [
        ("what did i do yesterday?", True),
        ("remind me what we did yesterday", True),
        ("what was i up to two days ago?", True),
        ("what did we work on last week?", True),
        ("what have we been working on lately?", True),
        ("recap of yesterday please", True),
        ("我昨天做了什么？", True),
        ("上周我们干了啥？", True),
        ("上个月我学了什么？", True),
        # a subject besides the time
        ("what did we decide about the cache yesterday?", False),
        ("what did i buy two weeks ago?", False),
        ("上周我们修了哪个bug？", False),
        # a plan, not what happened; no question
        ("what should i do today?", False),
        ("ok, do it today", False),
        ("yesterday i fixed the login bug.", False),
        # "these days" in a question of the present asks what holds now, in one of the past
        # what happened
        ("how do i get to work these days?", False),
        ("what have we been working on these days?", True),
    ],
)
def test_asking_only_what_happened_then(text: str, only: bool) -> None:
    anchor, alone = read_window(text)
    assert anchor != ()
    assert alone is only


def test_no_time_no_window() -> None:
    assert read_window("what port does the api listen on?") == ((), False)
