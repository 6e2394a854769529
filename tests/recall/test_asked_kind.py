"""A what/which question asking for a kind of thing ("what charting *library* …") is answered
by a claim naming an instance of it, which need not hold the kind's word
(memory_core.text.grammar.asked_kind, memory_core.recall.scoring.kind_units)."""

from __future__ import annotations

import pytest

from cli.commands.recall_cmd import _render_diagnostics
from memory_core.recall.kinds import kind_units
from memory_core.recall.query_plan import plan_query
from memory_core.recall.scoring import PlanScorer
from memory_core.recall.service import explain_claim, recall
from memory_core.text.asked_kind import asked_kind
from tests.support.recalled import ids
from tests.support.times import NOW


@pytest.mark.parametrize(
    ("text", "word", "qualifiers", "verb"),
    [
        ("what typescript validation library does the developer use?", "library", ("typescript", "validation"), None),
        ("what charting library is used in the dashboard-app?", "library", ("charting",), "used"),
        ("which hosting platform do we deploy the backend to?", "platform", ("hosting",), None),
        ("what orm is currently used in the api?", "orm", (), "used"),
        ("what kind of music do i like?", "music", ("kind", "of"), None),
        ("what function was created to fix the bug and what library does it use?", "function", (), "created"),
        ("ok. what library does it use?", "library", (), None),
        ("which class has the bug?", "class", (), None),
    ],
)
def test_the_kind_a_question_asks(text: str, word: str, qualifiers: tuple[str, ...], verb: str | None) -> None:
    found = asked_kind(text)
    assert found is not None
    assert (found.word, found.qualifiers, found.verb) == (word, qualifiers, verb)


@pytest.mark.parametrize(
    "text",
    [
        "which events has jon taken part in?",  # a list: its items are often stated by their kind
        "what books am i reading?",
        "what is my job?",  # no kind before the verb
        "what did i buy?",
        "how is the library used?",
        "the library we use is fine",  # no question
        "which is faster, redis or memcached?",
        "我用的是什么库？",
    ],
)
def test_questions_that_ask_no_one_kind(text: str) -> None:
    assert asked_kind(text) is None


def test_an_attribute_is_asked_as_its_values_are_not_as_a_kind() -> None:
    assert plan_query("what port does the widget server listen on?").kind is None
    kind = plan_query("What charting library is used in the dashboard-app?").kind
    assert kind is not None and kind.word == ("~library",) and kind.qualifiers == ("chart",)


CODING = (
    "Use Zod for all TypeScript validation schemas.",
    "The library downtown closes at eight on Fridays.",
    "The developer portal needs a new logo.",
    "Recharts draws the revenue charts on the dashboard.",
    "The dashboard loads slowly on the office wifi.",
    "TypeScript strict mode is on in every package.",
    "The TypeScript build runs in CI before the tests.",
    "Form validation errors show under each field.",
    "Validation of the upload size happens on the server.",
    "Charts in the weekly report use the brand colours.",
)


def test_a_claim_naming_an_instance_answers_the_kind_asked(add, reader) -> None:
    claims = [add(text) for text in CODING]
    # "library" and "developer" are words other claims hold, so each counts: the answer
    # names the library (Zod) and holds neither.
    asked = "What TypeScript validation library does the developer use?"
    assert ids(recall(reader.conn, asked, now=NOW)) == [claims[0].id]
    assert ids(recall(reader.conn, "What charting library does the dashboard use?", now=NOW)) == [claims[3].id]
    verdict = explain_claim(reader.conn, asked, claims[0].id, now=NOW)
    assert verdict["selected"] is True
    assert "library" in verdict["asked_kind"]
    # A claim holding the kind's word is judged on it as before.
    assert "asked_kind" not in explain_claim(reader.conn, "What library closes at eight?", claims[1].id, now=NOW)


@pytest.mark.parametrize(
    ("question", "kind", "support"),
    [
        # the words qualifying the kind, and the subject the question names
        ("What TypeScript validation library does the developer use?", "~library", {"typescript", "valid", "develop"}),
        # not the passive verb, and not a concept of another phrase ("what library does it use")
        (
            "What function was created to fix the timezone bug and what library does it use?",
            "~function",
            {"fix", "timezon", "bug"},
        ),
        # "like" is the question's verb: a claim sharing only it names no kind of music
        ("What kind of music does Dana like?", "music", {"dana"}),
    ],
)
def test_what_an_instance_must_match_in_place_of_the_kind(question: str, kind: str, support: set[str]) -> None:
    plan = plan_query(question)
    frequency = {t.feature: 1 for t in plan.focus}
    head, units, _qualifiers = kind_units(PlanScorer(plan, frequency, 10).focus_units, plan.kind)
    assert head is not None and head.terms[0].feature == kind
    assert {t.feature for u in units for t in u.terms} == support


def test_a_question_of_one_word_has_no_kind_to_leave_out() -> None:
    plan = plan_query("Which library do you use?")
    assert plan.kind is not None and [t.feature for t in plan.focus] == ["~library"]
    assert kind_units(PlanScorer(plan, {"~library": 1}, 10).focus_units, plan.kind) == (None, (), ())


def test_the_kind_is_said_in_the_plan(add, reader) -> None:
    add(CODING[0])
    result = recall(reader.conn, "What TypeScript validation library does the developer use?", now=NOW)
    assert result.diagnostics["plan"]["asks_kind"] == "~library"
    assert "; asks a kind: ~library" in _render_diagnostics(result.diagnostics)


def test_the_kinds_word_without_its_qualifier_names_another_kind(add, reader) -> None:
    credentials = add("NextAuth.js with the Credentials provider handles the dashboard's login.")
    add("Payments in the dashboard go through Adyen.")
    add("The billing service runs on a cloud VM in Frankfurt.")
    # "provider" alone is another kind of provider than the cloud provider asked about: the
    # claim matches the dashboard and a provider, but no cloud provider.
    asked = "What cloud provider is the dashboard deployed on?"
    assert credentials.id not in ids(recall(reader.conn, asked, now=NOW))
    assert explain_claim(reader.conn, asked, credentials.id, now=NOW)["reason"] == "focus_coverage"
    plan = plan_query(asked)
    _head, _support, qualifiers = kind_units(PlanScorer(plan, {"cloud": 1, "provid": 1}, 10).focus_units, plan.kind)
    assert [u.terms[0].feature for u in qualifiers] == ["cloud"]
