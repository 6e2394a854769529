"""Questions of time and requests for advice: how long ago, which came first, and a stated
preference recalled for "can you recommend …" (on every store backend)."""

from __future__ import annotations

import pytest

from cli.commands.recall_cmd import _render_claim, _render_diagnostics
from memory_core.recall.events import answer_events
from memory_core.recall.index import IndexedDoc
from memory_core.recall.query_plan import build_plan
from memory_core.recall.rank import Candidate
from memory_core.recall.service import explain_claim, recall
from memory_core.text.grammar import VERB, two_events
from memory_core.text.query_features import query_terms
from memory_core.text.tokenize import normalize
from tests.support.recalled import ids
from tests.support.times import DAY, NOW


def features(text: str) -> list[str]:
    return [t.feature for t in query_terms(text)]


def verbs(text: str) -> list[str]:
    return [t.feature for t in query_terms(text) if t.role == VERB]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a distance from the moment of speaking is read off the claim's date
        ("How long ago did I get my cat?", ["cat"]),
        ("What did I buy two weeks ago?", ["bui"]),
        ("How many days ago did I run the half marathon?", ["run", "half", "marathon"]),
        ("How long has it been since I moved to Lisbon?", ["move", "lisbon"]),
        # the act an aspectual verb begins or ends, in a question of time, is the event
        ("How long has it been since I started learning Spanish?", ["learn", "spanish"]),
        ("When did I quit smoking?", ["smoke"]),
        # an order in time is read off the two claims' dates
        ("Which came first, getting my laptop or going to the dentist?", ["laptop", "dentist"]),
        ("What happened earlier, the audit or the migration?", ["audit", "~migration"]),
        # the act asked of the assistant, and the praise of what is asked for
        ("Can you recommend a good book on Roman history?", ["book", "roman", "histori"]),
        ("Any tips for my flight to Denver?", ["flight", "denver"]),
        ("Do you have any good ideas for a birthday present?", ["~birthday", "present"]),
        ("Could you give me some tips for the kafka consumer?", ["kafka", "consum"]),
        ("What would you suggest for a quick dinner?", ["quick", "dinner"]),
        ("Suggest a new podcast for my commute.", ["podcast", "commut"]),
    ],
)
def test_framing_of_time_and_advice_is_no_subject(text: str, expected: list[str]) -> None:
    assert features(text) == expected


def test_the_same_words_elsewhere_still_count() -> None:
    # an aspectual verb outside a question of time keeps its sense
    assert features("Why did I start running?") == ["start", "run"]
    # "first" and "recommend" in a question about what was said or done keep their sense
    assert "first" in features("What was my first job?")
    assert "recommend" in features("What book did you recommend to me about habits?")
    assert "tip" in features("What tip did the barista give me?")
    # "ago" inside an identifier is no time
    assert "ago-cli" in features("what does ago-cli do?")


def test_how_long_ago_is_answered_by_the_event(add, reader) -> None:
    cat = add("I adopted a rescue cat named Biscuit from the county shelter.", at=NOW - 45 * DAY)
    add("Started my pottery class at the community center, Tuesdays at 7.", at=NOW - 40 * DAY)
    assert ids(recall(reader.conn, "How long ago did I get my cat?", now=NOW)) == [cat.id]


def test_since_dates_an_act_stated_without_its_aspect(add, reader) -> None:
    spanish = add("I signed up for a Spanish course on Duolingo and did my first lesson.", at=NOW - 30 * DAY)
    add("Started my pottery class at the community center, Tuesdays at 7.", at=NOW - 35 * DAY)
    add("I adopted a rescue cat named Biscuit from the county shelter.", at=NOW - 45 * DAY)
    question = "How long has it been since I started learning Spanish?"
    assert ids(recall(reader.conn, question, now=NOW)) == [spanish.id]
    # "learning", after the clause's pronoun, is its verb: no unknown subject
    assert verbs(question) == ["learn"]


def test_which_came_first_gets_both_events(add, reader) -> None:
    laptop = add("I finally got my new laptop today, a ThinkPad X1 Carbon.", at=NOW - 58 * DAY)
    dentist = add("Went to the dentist this morning for a cleaning, no cavities!", at=NOW - 51 * DAY)
    add("The plumber came to fix the water heater, it cost $340.", at=NOW - 2 * DAY)
    add("I signed up for a Spanish course and did my first lesson.", at=NOW - 5 * DAY)
    question = "Which came first, getting my laptop or going to the dentist?"
    assert set(ids(recall(reader.conn, question, now=NOW))) == {laptop.id, dentist.id}


def test_a_request_for_advice_recalls_the_preference_it_names(add, reader) -> None:
    podcasts = add("I mostly listen to true crime podcasts on my commute, especially Casefile.", at=NOW - 20 * DAY)
    add("My budget for a new phone is around $500, and I want a good camera.", at=NOW - 15 * DAY)
    add("I play guitar, mostly fingerstyle folk.", at=NOW - 10 * DAY)
    # "can you suggest a new" is the request, not what memory holds: the podcast claim answers
    assert ids(recall(reader.conn, "Can you suggest a new podcast for my commute?", now=NOW)) == [podcasts.id]


def test_a_request_naming_what_memory_does_not_hold_stays_unanswered(add, reader) -> None:
    seats = add("I prefer aisle seats on flights because I get up a lot.", at=NOW - 20 * DAY)
    add("My son's school starts at 8:15.", at=NOW - 15 * DAY)
    # One matched word beside a name no claim holds is no answer, for a request as for a
    # question (a request that lifted the rule returned "school starts at 8:15" for "can you
    # recommend a restaurant near the school?")
    assert ids(recall(reader.conn, "Any tips for my flight to Denver?", now=NOW)) == []
    assert explain_claim(reader.conn, "Any tips for my flight to Denver?", seats.id, now=NOW)["reason"] == (
        "unknown_words"
    )
    assert ids(recall(reader.conn, "Can you recommend a restaurant near the school?", now=NOW)) == []
    # A question about what somebody advised keeps the word
    assert "tip" in features("Did my sister give me any tips about the dentist?")


def test_praise_in_a_request_matches_nothing(add, reader) -> None:
    add("My budget for a new phone is around $500, and I want a good camera.", at=NOW - 15 * DAY)
    add("I play guitar, mostly fingerstyle folk.", at=NOW - 10 * DAY)
    assert ids(recall(reader.conn, "Can you recommend a good book on Roman history?", now=NOW)) == []


def test_a_judgement_asked_keeps_the_unknown_word_gate(add, reader) -> None:
    add("My teacher moved my desk to the front row.", at=NOW - 3 * DAY)
    # "should I" asks for no suggestion: "believe", which no claim holds, still blocks
    assert ids(recall(reader.conn, "What should I do? Will the teacher believe me?", now=NOW)) == []


def test_which_came_first_in_chinese_gets_both_events(add, reader) -> None:
    laptop = add("今天终于拿到新笔记本电脑了，是ThinkPad X1 Carbon，晚上装系统。", at=NOW - 58 * DAY)
    dentist = add("今天上午去看了牙医，洗了牙，没有蛀牙！", at=NOW - 51 * DAY)
    add("我自己把厨房的水龙头换了，花了两个小时。", at=NOW - 20 * DAY)
    add("我订了去里斯本的机票，十月份去过结婚纪念日。", at=NOW - 13 * DAY)
    # 先 … 还是先 … asks an order: 先 is no part of either act, 还是 joins the two
    question = "我是先买的笔记本电脑还是先去看的牙医？"
    assert "先买" not in features(question)
    assert set(ids(recall(reader.conn, question, now=NOW))) == {laptop.id, dentist.id}


def test_a_chinese_request_recalls_a_word_holding_a_pronouns_character(add, reader) -> None:
    guitar = add("我弹吉他，主要是指弹民谣。", at=NOW - 20 * DAY)
    add("我乳糖不耐受，不喝牛奶。", at=NOW - 18 * DAY)
    add("我用达芬奇剪视频，一直用不惯Premiere。", at=NOW - 15 * DAY)
    assert ids(recall(reader.conn, "你能推荐几首适合练吉他的歌吗？", now=NOW)) == [guitar.id]
    assert "推荐" not in features("你能推荐几首适合练吉他的歌吗？")


@pytest.mark.parametrize(
    ("text", "events"),
    [
        ("Which came first, getting my laptop or going to the dentist?", ("getting my laptop", "going to the dentist")),
        (
            "Which did I do first, adopt Biscuit or start the pottery class?",
            ("adopt biscuit", "start the pottery class"),
        ),
        ("Did I adopt Biscuit before or after starting pottery?", ("adopt biscuit", "starting pottery")),
        (
            "How many days passed between getting my laptop and going to the dentist?",
            ("getting my laptop", "going to the dentist"),
        ),
        ("How long was it between the audit and the migration?", ("the audit", "the migration")),
        ("How many days before the concert did I buy the tickets?", ("the concert", "i buy the tickets")),
        ("How long after the deploy did the alerts fire?", ("the deploy", "the alerts fire")),
        ("我是先买的笔记本电脑还是先去看的牙医？", ("买的笔记本电脑", "去看的牙医")),
        ("领养饼干和报陶艺课，哪个在前？", ("领养饼干", "报陶艺课")),
        ("领养饼干和报陶艺课之间隔了多久？", ("领养饼干", "报陶艺课")),
        # each event ends where its sentence does
        (
            "how long between the 1.2 release and the hotfix? asking for the postmortem",
            ("the 1.2 release", "the hotfix"),
        ),
        ("我们和客户签约和上线之间隔了多久？", ("我们和客户签约", "上线")),
        # one thing asked, not two events
        ("What is the first step, migrate or seed?", None),
        ("How long after lunch do I take my pills?", None),
        ("What should I do first, migrate or seed?", None),
        ("First, do you prefer pytest or unittest?", None),
        ("How long is the timeout between the client and the server?", None),
        ("What's the time difference between Berlin and Tokyo?", None),
        ("周六和周日哪个晚上有空？", None),
        ("Python和Go哪个先进？", None),
        ("客户端和服务器之间多久超时？", None),
        ("What did we do first?", None),
        ("Which port does redis use, 6379 or 6380?", None),
        ("What is the difference between redis and memcached?", None),
        ("我们用redis还是memcached？", None),
    ],
)
def test_two_events_a_question_joins(text: str, events: tuple[str, str] | None) -> None:
    assert two_events(normalize(text)) == events
    if events is not None:  # as written, when the text before lowercasing is given
        written = two_events(normalize(text), text)
        assert written is not None and [e.lower() for e in written] == list(events)


def test_each_of_two_events_is_answered_on_its_own(add, reader) -> None:
    laptop = add("I finally got my new laptop today, a ThinkPad X1 Carbon.", at=NOW - 58 * DAY)
    dentist = add("Went to the dentist this morning for a cleaning, no cavities!", at=NOW - 51 * DAY)
    add("I adopted a rescue cat named Biscuit from the county shelter.", at=NOW - 45 * DAY)
    add("Started my pottery class at the community center, Tuesdays at 7.", at=NOW - 40 * DAY)
    add("I signed up for a Spanish course and did my first lesson.", at=NOW - 5 * DAY)
    question = "How many days passed between getting my laptop and going to the dentist?"
    assert set(ids(recall(reader.conn, question, now=NOW))) == {laptop.id, dentist.id}
    verdict = explain_claim(reader.conn, question, dentist.id, now=NOW)
    assert verdict["selected"] is True
    assert verdict["event"] == "going to the dentist"
    assert "selected (as the answer to one of two events the question joins: 'going to the dentist')" in (
        "\n".join(_render_claim(verdict))
    )
    diagnostics = recall(reader.conn, question, now=NOW).diagnostics
    assert diagnostics["plan"]["events"] == ["getting my laptop", "going to the dentist"]
    assert "; events: 'getting my laptop' / 'going to the dentist'" in _render_diagnostics(diagnostics)
    # Two events of several words each: neither claim answers the whole question (each event
    # as the question writes it)
    question = "Which did I do first, adopt Biscuit or start the pottery class?"
    found = ids(recall(reader.conn, question, now=NOW))
    assert len(found) == 2
    assert {explain_claim(reader.conn, question, i, now=NOW)["event"] for i in found} == {
        "adopt Biscuit",
        "start the pottery class",
    }
    # "how many days before A did I B?"
    question = "How many days before the pottery class did I adopt Biscuit?"
    assert len(ids(recall(reader.conn, question, now=NOW))) == 2


def test_an_event_nothing_answers_adds_nothing(add, reader) -> None:
    laptop = add("I finally got my new laptop today, a ThinkPad X1 Carbon.", at=NOW - 58 * DAY)
    add("I adopted a rescue cat named Biscuit from the county shelter.", at=NOW - 45 * DAY)
    question = "Which came first, getting my laptop or the eye exam?"
    assert ids(recall(reader.conn, question, now=NOW)) == [laptop.id]


def test_an_event_whose_best_claim_the_other_took_gets_its_next(add, reader) -> None:
    limits = add("We added rate limiting to the public API after the outage.", at=NOW - 20 * DAY)
    outage = add("The payments outage lasted two hours; the root cause was a full disk.", at=NOW - 30 * DAY)
    add("We upgraded the cluster to Kubernetes 1.29.", at=NOW - 10 * DAY)
    question = "How many days between the outage and adding rate limiting?"
    assert set(ids(recall(reader.conn, question, now=NOW))) == {limits.id, outage.id}


def test_an_event_told_by_a_pronoun_is_not_asked_alone(add, reader) -> None:
    dark = add("We shipped the dark mode feature in 1.1.", at=NOW - 40 * DAY)
    outage = add("The payments outage lasted two hours; the root cause was a full disk.", at=NOW - 30 * DAY)
    question = "Did we ship it before or after the outage?"
    assert ids(recall(reader.conn, question, now=NOW))[0] == outage.id
    assert explain_claim(reader.conn, question, outage.id, now=NOW)["event"] == "the outage"
    # "ship it" means the conversation's subject: no claim is chosen for it alone
    assert "event" not in explain_claim(reader.conn, question, dark.id, now=NOW)


def test_a_claim_an_events_answer_displaces_says_so(add, reader) -> None:
    laptop = add("I finally got my new laptop today, a ThinkPad X1 Carbon.", at=NOW - 58 * DAY)
    dentist = add("Went to the dentist this morning for a cleaning, no cavities!", at=NOW - 51 * DAY)
    question = "How many days passed between getting my laptop and going to the dentist?"
    # What the whole question chose, and what each event chooses (as the engine passes them)
    whole = [_candidate("w1"), _candidate("w2"), _candidate("w3")]
    by_event = {"getting my laptop": [_candidate(laptop.id)], "going to the dentist": [_candidate(dentist.id)]}
    plan = build_plan([question])
    chosen, candidates = answer_events(plan, whole, list(whole), lambda p: by_event[_text(p)], 3)
    assert [c.doc.memory_id for c in chosen] == [laptop.id, dentist.id, "w1"]
    assert [c.excluded for c in whole] == [None, "over_limit", "over_limit"]
    assert [c.event for c in chosen] == ["getting my laptop", "going to the dentist", ""]
    assert len(candidates) == 5
    # what a claim chosen for one event misses is of that event
    verdict = explain_claim(reader.conn, question, laptop.id, now=NOW)
    assert verdict["event"] == "getting my laptop"
    assert verdict["missing"] == []


def _text(plan) -> str:
    words = {t.feature for t in plan.focus}
    return "getting my laptop" if "laptop" in words else "going to the dentist"


def _candidate(memory_id: str) -> Candidate:
    doc = IndexedDoc(memory_id, "/o", "fact", "h", 1.0, 1.0, False, 1, "summary", "local", None, None, 5)
    return Candidate(doc, 1.0, ("x",), ())
