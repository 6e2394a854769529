"""The loopback fake playing the documented differences of real OpenAI-compatible servers;
each is handled, or fails with a clear, recorded code."""

from __future__ import annotations

import json
from email.utils import formatdate
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.jobs.budget import usage_on
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, settings, source_row
from workers.consolidate import consolidate_source

ANSWER = json.dumps({"claims": [{"kind": "fact", "content": "The staging database listens on port 5433"}]})


def stored_claims(home: Path) -> list[str]:
    with Store.open(home) as store:
        return [json.loads(b)["content"] for (b,) in store.conn.execute("SELECT body FROM memories")]


HANDLED = [
    pytest.param(Reply(content=ANSWER, omit_usage=True), id="no-usage"),
    pytest.param(
        Reply(content_parts=[{"type": "text", "text": ANSWER[:20]}, {"type": "text", "text": ANSWER[20:]}]),
        id="content-parts",
    ),
    pytest.param(
        Reply(content_parts=[{"type": "thinking", "thinking": "Let me see."}, {"type": "text", "text": ANSWER}]),
        id="thinking-part-first",
    ),
    pytest.param(Reply(content=ANSWER, finish_reason="eos"), id="finish-eos"),
    pytest.param(Reply(content=ANSWER, finish_reason="eos_token"), id="finish-eos-token"),
    pytest.param(Reply(content=ANSWER, finish_reason="end_turn"), id="finish-end-turn"),
    pytest.param(Reply(content=ANSWER, finish_reason=None), id="finish-missing"),
    pytest.param(Reply(content=ANSWER, reasoning="The user states a port. " * 50), id="reasoning-field-first"),
    pytest.param(Reply(content="<think>\nThe source states a port.\n</think>\n\n" + ANSWER), id="think-block"),
    pytest.param(Reply(content="```json\n" + ANSWER + "\n```"), id="fenced"),
]


@pytest.mark.parametrize("reply", HANDLED)
def test_handled(home: Path, model: FakeModelServer, reply: Reply) -> None:
    model.enqueue(reply)
    outcome = consolidate_source(settings(), capture(home))
    assert outcome.status == "done", outcome
    assert stored_claims(home) == ["The staging database listens on port 5433"]


def test_a_cost_the_server_reports_is_counted(home: Path, model: FakeModelServer, cli_run) -> None:
    """OpenRouter (and servers like it) put what a call cost, in US dollars, in ``usage.cost``."""
    model.enqueue(Reply(content=ANSWER, usage={"prompt_tokens": 300, "completion_tokens": 40, "cost": 0.00042}))
    assert consolidate_source(settings(), capture(home)).status == "done"
    with Store.open(home) as store:
        usage = usage_on(store.conn, clock.now())
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 300, 40)
    assert (usage.cost_usd, usage.costed_calls) == (0.00042, 1)
    assert "$0.0004 reported (every call)" in cli_run("status").output


def test_an_answer_cut_off_still_counts_its_cost(home: Path, model: FakeModelServer) -> None:
    spent = {"prompt_tokens": 9, "completion_tokens": 9, "cost": 2}
    model.enqueue(Reply(content=ANSWER[:30], finish_reason="length", usage=spent))
    consolidate_source(settings(), capture(home))
    with Store.open(home) as store:
        usage = usage_on(store.conn, clock.now())
    assert (usage.calls, usage.cost_usd, usage.costed_calls) == (1, 2.0, 1)


@pytest.mark.parametrize("value", [-1, "0.5", True, None, {"usd": 1}, float("nan")], ids=repr)
def test_a_cost_that_is_not_a_number_is_none_reported(home: Path, model: FakeModelServer, value: object) -> None:
    model.enqueue(Reply(content=ANSWER, usage={"prompt_tokens": 10, "completion_tokens": 5, "cost": value}))
    assert consolidate_source(settings(), capture(home)).status == "done"
    with Store.open(home) as store:
        usage = usage_on(store.conn, clock.now())
    assert (usage.calls, usage.tokens, usage.cost_usd, usage.costed_calls) == (1, 15, 0.0, 0)


def test_missing_usage_still_counts_the_call(home: Path, model: FakeModelServer) -> None:
    model.enqueue(Reply(content=ANSWER, omit_usage=True))
    consolidate_source(settings(), capture(home))
    with Store.open(home) as store:
        usage = usage_on(store.conn, clock.now())
    assert (usage.calls, usage.tokens) == (1, 0)


def test_400_for_an_unknown_parameter_is_handled_by_the_fallback(home: Path, monkeypatch) -> None:
    from tests.worker.conftest import point_at

    # LM Studio refuses {"type": "json_object"}; a strict proxy refuses response_format at all.
    for rules, expected in (
        (["response_format.type=json_object"], ["json_schema"]),
        (["response_format"], ["json_schema", "json_object", None]),
    ):
        with FakeModelServer(reject_params=rules) as server:
            point_at(server, monkeypatch)
            sid = capture(home, f"remember that {rules[0]} is handled")
            assert consolidate_source(settings(), sid).status == "done"
            assert [(r.get("response_format") or {}).get("type") for r in server.requests] == expected


@pytest.mark.parametrize(("header", "at_least"), [("120", 120.0), ("7200", 3600.0), ("soon", 60.0)])
def test_retry_after_on_429_is_honoured(home: Path, model: FakeModelServer, header: str, at_least: float) -> None:
    sid = capture(home)
    model.enqueue(Reply(status=429, headers={"Retry-After": header}))
    before = clock.now()
    outcome = consolidate_source(settings(), sid)
    assert (outcome.error_code, outcome.error_reason) == ("unavailable", "http_429")
    due = source_row(home, sid).next_due_at
    assert before + at_least - 1 <= due <= clock.now() + at_least + 1  # capped at an hour; garbage ignored


def test_retry_after_as_an_http_date(home: Path, model: FakeModelServer) -> None:
    sid = capture(home)
    model.enqueue(Reply(status=429, headers={"Retry-After": formatdate(clock.now() + 600, usegmt=True)}))
    consolidate_source(settings(), sid)
    assert clock.now() + 590 <= source_row(home, sid).next_due_at <= clock.now() + 602


@pytest.mark.parametrize(
    ("reply", "code", "reason"),
    [
        (Reply(content=ANSWER, finish_reason="content_filter"), "invalid_output", "content_filter"),
        (Reply(content=ANSWER, finish_reason="length"), "output_limit", "cut_off"),
        (Reply(content_parts=[{"type": "image_url", "image_url": {"url": "x"}}]), "invalid_output", "no_text"),
        (Reply(content="<think>only thinking, never an answer"), "invalid_output", "not_json"),
        (Reply(status=503, headers={"Retry-After": "5"}), "unavailable", "http_503"),
        (Reply(body='{"object": "error", "message": "model not found"}'), "provider", "no_choices"),
    ],
    ids=["content-filter", "length", "image-part", "unclosed-think", "503", "error-object-with-200"],
)
def test_clear_recorded_failures(home: Path, model: FakeModelServer, reply: Reply, code: str, reason: str) -> None:
    sid = capture(home)
    model.enqueue(reply)
    outcome = consolidate_source(settings(), sid)
    assert (outcome.error_code, outcome.error_reason) == (code, reason)
    assert (source_row(home, sid).last_error_code, source_row(home, sid).last_error_reason) == (code, reason)
