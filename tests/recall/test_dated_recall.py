"""A question naming a time, answered by the claims dated within it (on every store backend)."""

from __future__ import annotations

import time

from cli.commands.recall_cmd import _render_claim, _render_diagnostics
from memory_core.recall.dated import prefer, read_dated
from memory_core.recall.index import IndexedDoc
from memory_core.recall.rank import Candidate
from memory_core.recall.service import explain_claim, preview, recall, search, turn_recall
from tests.support.recalled import ids

# Monday 7 December 2026, 17:00 local time; every claim dated in the local calendar.
NOW = time.mktime((2026, 12, 7, 17, 0, 0, 0, 0, -1))
HOUR = 3_600.0
DAY = 86_400.0


def at(d: int, hour: int = 12) -> float:
    """``hour`` o'clock on 7 - ``d`` December 2026 (``d`` days before today)."""
    return time.mktime((2026, 12, 7 - d, hour, 0, 0, 0, 0, -1))


def week(add):
    """A week of work on a project, one or two claims a day."""
    return {
        "today": add("Switched the test runner to pytest-xdist with two workers.", at=at(0, 10)),
        "late": add("The login bug came from a stale session cookie; cleared it on logout.", at=at(1, 18)),
        "early": add("Decided to cache product lists in Redis for five minutes.", at=at(1, 9)),
        "before": add("Upgraded PostgreSQL from 14 to 15 on the staging server.", at=at(2)),
        "old": add("The nightly backup job writes to the S3 bucket ops-backups.", at=at(9)),
    }


def test_only_a_time_is_answered_by_the_claims_of_that_time(add, reader) -> None:
    claims = week(add)
    result = recall(reader.conn, "What did I do yesterday?", now=NOW)
    # newest first, and nothing of another day
    assert ids(result) == [claims["late"].id, claims["early"].id]
    assert ids(recall(reader.conn, "我昨天做了什么？", now=NOW)) == [claims["late"].id, claims["early"].id]
    assert ids(recall(reader.conn, "remind me what we did the day before yesterday", now=NOW)) == [claims["before"].id]
    assert ids(recall(reader.conn, "what did we do today?", now=NOW)) == [claims["today"].id]
    # the digest holds them, with their dates
    assert "stale session cookie" in result.digest
    assert "2026-12-06" in result.digest


def test_a_week_fills_the_three_places_newest_first(add, reader) -> None:
    claims = week(add)
    # last week, Monday 30 November to Sunday 6 December: three claims, not today's nor the 28th's
    result = recall(reader.conn, "What did we work on last week?", now=NOW)
    assert ids(result) == [claims["late"].id, claims["early"].id, claims["before"].id]
    this_week = recall(reader.conn, "what have we been working on lately?", now=NOW)
    assert ids(this_week) == [claims["today"].id, claims["late"].id, claims["early"].id]
    # a listing holds every claim of the span, one of each content
    listing = search(reader.conn, "what did we do in the past 3 days?", now=NOW)
    assert ids(listing) == [claims["today"].id, claims["late"].id, claims["early"].id, claims["before"].id]


def test_last_week_is_the_calendar_week_before_this_one(add, reader) -> None:
    monday = add("Wrote the migration plan for the orders table.", at=at(7))
    sunday = add("Reviewed the on-call rota for December.", at=at(1))
    add("Started the quarterly planning doc.", at=at(0))
    add("Fixed the flaky upload test.", at=at(8))
    assert ids(recall(reader.conn, "What did we work on last week?", now=NOW)) == [sunday.id, monday.id]
    assert ids(recall(reader.conn, "上周我们干了啥？", now=NOW)) == [sunday.id, monday.id]


def test_a_distance_from_now_prefers_the_claims_nearest_it(add, reader) -> None:
    near = add("Moved the docs site to MkDocs Material.", at=at(60))
    add("Rotated the API keys for the payment provider.", at=at(40))
    add("Archived the old marketing repository.", at=at(75))
    add("Set up Renovate for dependency updates.", at=at(3))
    result = recall(reader.conn, "what did I do about two months ago?", now=NOW)
    assert ids(result)[0] == near.id
    assert len(ids(result)) == 3
    assert ids(recall(reader.conn, "两个月前我在做什么？", now=NOW))[0] == near.id


def cache_decisions(add):
    """The same decision taken a month ago and yesterday; the newer one is returned."""
    add("Decided to cache the product pages in Redis for an hour.", at=at(30))
    return add("Decided to cache the product pages in Redis for five minutes only.", at=at(1))


def test_a_subject_at_a_time_gets_the_claim_of_that_time(add, reader) -> None:
    recent = cache_decisions(add)
    question = "what did we decide about caching the product pages yesterday?"
    assert ids(recall(reader.conn, question, now=NOW)) == [recent.id]
    # without the time both answer
    assert len(ids(recall(reader.conn, "what did we decide about caching the product pages?", now=NOW))) == 2


def test_a_claim_of_that_time_that_lost_only_in_selection_answers(add, reader) -> None:
    # Five camping trips tie on the question's words: recall cannot tell them apart, but the
    # date can.
    trips = [
        add(f"Melanie went camping by the {place} with her kids", origin="/chat/melanie", at=at(d))
        for place, d in (("lake", 200), ("forest", 170), ("beach", 110), ("mountains", 80), ("desert", 40))
    ]
    assert ids(recall(reader.conn, "when did Melanie go camping", now=NOW)) != [trips[2].id]
    result = recall(reader.conn, "when did Melanie go camping in August?", now=NOW)
    assert ids(result) == [trips[2].id]  # 19 August 2026
    verdict = explain_claim(reader.conn, "when did Melanie go camping in August?", trips[2].id, now=NOW)
    assert verdict["selected"] and verdict["dated_within"]
    assert verdict["time"] == "2026-08-01 to 2026-08-31"


def test_when_nothing_of_that_time_answers_the_choice_stands(add, reader) -> None:
    # a claim can state the time it tells of on another day than that time
    trip = add("Last year we went camping at Yosemite and saw a bear.", at=at(20))
    add("I bought a new tent for the next trip.", at=at(3))
    assert ids(recall(reader.conn, "what did we see on our camping trip last year?", now=NOW)) == [trip.id]
    # and a claim stating the date it asks about still matches its words
    june = add("We went hiking in the Alps in June with the kids.", at=at(100))
    assert ids(recall(reader.conn, "where did we go hiking in June?", now=NOW)) == [june.id]


def test_nothing_of_that_time_is_nothing(add, reader) -> None:
    week(add)
    assert recall(reader.conn, "what did I do on October 13, 2023?", now=NOW).claims == []
    assert recall(reader.conn, "去年我学了什么？", now=NOW).claims == []
    # a plan for today is no question about what happened
    assert recall(reader.conn, "what should I do today?", now=NOW).claims == []


def test_old_claims_of_that_time_are_recalled_with_their_age(add, reader) -> None:
    # a question about a time long past asks about what was said then: dormancy is no reason
    # to hide it (automatic recall leaves dormant claims out otherwise)
    old = add("Presented the roadmap at the all-hands.", kind="project_state", at=at(420))
    result = turn_recall(reader.conn, ["what did I do in October 2025?"], now=NOW, session_is_fresh=True)
    assert ids(result) == [old.id]
    assert result.claims[0].dormant


def test_the_same_content_twice_is_recalled_once(add, reader) -> None:
    first = add("Bumped the Node version to 22 in CI.", origin="/work/a", at=at(1, 9))
    second = add("Bumped the Node version to 22 in CI.", origin="/work/b", at=at(1, 15))
    other = add("Renamed the default branch to main.", at=at(1, 11))
    result = recall(reader.conn, "what did I do yesterday?", now=NOW)
    assert ids(result) == [second.id, other.id]
    assert first.id not in ids(result)


def test_explain_says_what_the_time_did(add, reader) -> None:
    claims = week(add)
    diagnostics = preview(reader.conn, "what did I do yesterday?", now=NOW, claim=claims["late"].id)
    assert diagnostics["plan"]["time"] == "2026-12-06"
    assert diagnostics["plan"]["time_only"] is True
    assert "; time: 2026-12-06 (asked alone: the claims dated then answer)" in _render_diagnostics(diagnostics)
    line = _render_claim(diagnostics["claim"])[0]
    assert line == f"claim {claims['late'].id}: selected (dated within the time the question asks about, 2026-12-06)"
    outside = explain_claim(reader.conn, "what did I do yesterday?", claims["old"].id, now=NOW)
    assert (outside["selected"], outside["reason"], outside["dated_within"]) == (False, "outside_window", False)
    assert "dated outside it" in outside["detail"]
    # a subject at a time: chosen by relevance, dated within it
    add("Decided to cache the product pages in Redis for an hour.", at=at(30))
    question = "what did we decide about caching product lists yesterday?"
    verdict = explain_claim(reader.conn, question, claims["early"].id, now=NOW)
    assert verdict["selected"]
    assert _render_claim(verdict)[0].endswith("by relevance, dated within the time the question names, 2026-12-06)")


def test_a_follow_up_asks_the_same_subject_at_another_time(add, reader) -> None:
    recent = cache_decisions(add)
    result = recall(
        reader.conn, "and yesterday?", context=["what did we decide about caching the product pages?"], now=NOW
    )
    assert ids(result) == [recent.id]


def _candidate(name: str, updated_at: float, raw: float, excluded: str | None = None) -> Candidate:
    doc = IndexedDoc(name * 24, "/p", "fact", name, updated_at, updated_at, 0, 2, None, None, None, None, 5)
    return Candidate(doc, raw, ("f",), (), excluded)


def test_prefer_keeps_the_chosen_of_that_time_or_the_spares_of_it() -> None:
    bounds = (at(1, 0), at(0, 0))
    inside, outside = _candidate("a", at(1), 5.0), _candidate("b", at(5), 9.0)
    chosen, instead = prefer([outside, inside], [outside, inside], bounds, 3)
    assert (chosen, instead, outside.excluded) == ([inside], [], "outside_window")
    # none chosen of that time: the best spare of that time, with the relative cutoff among them
    outside = _candidate("b", at(5), 9.0)
    spare = _candidate("c", at(1), 6.0, "below_relative_cutoff")
    weak = _candidate("d", at(1), 3.0, "ambiguous")
    failed = _candidate("e", at(1), 8.0, "focus_coverage")  # a gate failed: never a spare
    chosen, instead = prefer([outside], [outside, spare, weak, failed], bounds, 3)
    assert chosen == instead == [spare]
    assert outside.excluded == "outside_window"
    # nothing of that time at all: the choice stands
    outside = _candidate("b", at(5), 9.0)
    assert prefer([outside], [outside], bounds, 3) == ([outside], [])
    assert outside.excluded is None


def test_read_dated_reads_the_span_only(add, reader) -> None:
    claims = week(add)
    docs, held = read_dated(reader.conn, (at(2, 0), at(1, 0)), 3)
    assert ([d.memory_id for d in docs], held) == ([claims["before"].id], 1)
    docs, held = read_dated(reader.conn, (at(9, 0), at(0, 23)), 2)
    assert [d.memory_id for d in docs] == [claims["today"].id, claims["late"].id]
    assert held == 5
