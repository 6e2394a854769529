"""Every rejected answer records a fixed, allowlisted reason beside its error code; status,
`show` and the worker log show it; the answer itself (here carrying a planted secret)
never reaches the database, the log or any output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.records import REASON_FIELDS, Reason, is_reason_code, reason_code
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import SECRET, capture, settings, source_row, state_bytes, worker_log
from workers.consolidate import consolidate_source

GOOD = {"kind": "fact", "content": "The staging database listens on port 5433"}


def claims(*items: dict) -> Reply:
    return Reply.of_claims(list(items))


CASES = [
    ("prose", Reply(content=f'Sure! Noted {SECRET}. {{"claims": []}}'), "invalid_output", "not_json"),
    ("empty", Reply(content="   "), "invalid_output", "empty_answer"),
    ("array", Reply(content=json.dumps([SECRET])), "invalid_output", "not_an_object"),
    ("duplicate-key", Reply(content=f'{{"claims": [], "claims": ["{SECRET}"]}}'), "invalid_output", "duplicate_key"),
    (
        "too-large",
        Reply(content=json.dumps({"claims": [{**GOOD, "content": SECRET * 2000}]})),
        "invalid_output",
        "answer_too_large",
    ),
    ("reason-field", claims({**GOOD, "reason": SECRET}), "invalid_output", "extra_field:reason"),
    ("host-field", claims({**GOOD, "confidence": 0.9, "notes": SECRET}), "invalid_output", "extra_field:confidence"),
    ("unknown-field", claims({**GOOD, SECRET: 1}), "invalid_output", "extra_field:other"),
    (
        "top-level-field",
        Reply(content=json.dumps({"claims": [GOOD], "explanation": SECRET})),
        "invalid_output",
        "extra_field:explanation",
    ),
    (
        "missing-content",
        claims({"kind": "fact", "searchTerms": [SECRET[:60]]}),
        "invalid_output",
        "missing_field:content",
    ),
    (
        "wrong-type",
        claims({"kind": "fact", "content": 5433, "searchTerms": [SECRET[:60]]}),
        "invalid_output",
        "wrong_type:content",
    ),
    ("unknown-kind", claims({**GOOD, "kind": SECRET}), "invalid_output", "unknown_kind"),
    (
        "17-claims",
        claims(*[{**GOOD, "content": f"{SECRET} {i}"} for i in range(17)]),
        "invalid_output",
        "too_many_claims",
    ),
    ("content-too-long", claims({**GOOD, "content": SECRET * 20}), "invalid_output", "content_too_long"),
    (
        "content-too-short",
        claims({**GOOD, "content": "ab"}, {**GOOD, "content": SECRET}),
        "invalid_output",
        "content_too_short",
    ),
    (
        "9-aliases",
        claims({**GOOD, "searchTerms": [f"{SECRET[:20]}{i}" for i in range(9)]}),
        "invalid_output",
        "too_many_search_terms",
    ),
    ("alias-too-long", claims({**GOOD, "searchTerms": [SECRET * 3]}), "invalid_output", "search_term_length"),
    (
        "placeholder-id",
        claims({**GOOD, "content": SECRET, "replaces": "<candidate id>"}),
        "invalid_output",
        "bad_replacement_id",
    ),
    (
        "unknown-id",
        claims({**GOOD, "content": SECRET, "replaces": "0123456789abcdef01234567"}),
        "write_rejected",
        "unknown_replacement_id",
    ),
    (
        "finish-reason",
        Reply(content=json.dumps({"claims": [{**GOOD, "content": SECRET}]}), finish_reason="recitation"),
        "invalid_output",
        "wrong_finish_reason",
    ),
    ("content-filter", Reply(content=SECRET, finish_reason="content_filter"), "invalid_output", "content_filter"),
    (
        "cut-off",
        Reply(content='{"claims": [{"kind": "fact", "content": "' + SECRET, finish_reason="length"),
        "output_limit",
        "cut_off",
    ),
    ("tool-call", Reply(tool_calls=True, finish_reason="tool_calls"), "invalid_output", "tool_calls"),
    (
        "image-part",
        Reply(content_parts=[{"type": "image_url", "image_url": {"url": SECRET}}]),
        "invalid_output",
        "no_text",
    ),
    ("http-400", Reply(status=400, body=json.dumps({"error": {"message": SECRET}})), "provider", "http_400"),
    ("http-429", Reply(status=429, body=json.dumps({"error": SECRET})), "unavailable", "http_429"),
    ("not-json-body", Reply(body=f"<html>{SECRET}</html>"), "provider", "response_not_json"),
]


@pytest.mark.parametrize(("reply", "code", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rejected_answer_records_its_reason_and_nothing_of_the_body(
    home: Path, model: FakeModelServer, monkeypatch: pytest.MonkeyPatch, reply: Reply, code: str, reason: str
) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", "off")  # one request per attempt, whatever the reply
    sid = capture(home)
    model.enqueue(reply)
    outcome = consolidate_source(settings(), sid)
    assert (outcome.error_code, outcome.error_reason) == (code, reason)
    source = source_row(home, sid)
    assert (source.last_error_code, source.last_error_reason, source.consecutive_failures) == (code, reason, 1)
    assert f"{code} ({reason})" in worker_log(home)
    assert SECRET.encode() not in state_bytes(home)


def test_status_show_and_evolve_show_the_reason(home: Path, model: FakeModelServer, cli_run) -> None:
    sid = capture(home)
    model.enqueue(claims({**GOOD, "reason": SECRET}))
    consolidate_source(settings(), sid)
    report = json.loads(cli_run("status", "--json").output)
    [job] = report["failed_jobs"]
    assert (job["error_code"], job["error_reason"]) == ("invalid_output", "extra_field:reason")
    assert f"failing {sid}: 1 failures, invalid_output (extra_field:reason)" in cli_run("status").output
    shown = json.loads(cli_run("show", sid, "--json").output)
    assert shown["type"] == "source" and shown["job"]["last_error_reason"] == "extra_field:reason"
    text = cli_run("show", sid).output
    assert "last error:   invalid_output (extra_field:reason)" in text and "remember that the staging" in text
    outputs = cli_run("status").output + text + cli_run("show", sid, "--json").output
    assert SECRET not in outputs


def test_reason_codes_are_a_closed_list() -> None:
    assert reason_code(Reason.EXTRA_FIELD, "reasoning") == "extra_field:reasoning"
    assert reason_code(Reason.EXTRA_FIELD, SECRET) == "extra_field:other"
    assert all(is_reason_code(r.value) for r in Reason)
    assert all(is_reason_code(f"extra_field:{name}") for name in REASON_FIELDS)
    for bad in (SECRET, f"extra_field:{SECRET}", "not_json:", "x" * 65, None, 3):
        assert not is_reason_code(bad)


def test_a_stored_reason_outside_the_list_is_an_integrity_problem(home: Path, cli_run) -> None:
    sid = capture(home)
    from memory_core.store.engines.database import Store

    with Store.open(home) as store, store.transaction() as conn:
        conn.execute(
            "UPDATE sources SET consecutive_failures=1, last_error_code='invalid_output', "
            "last_error_reason=? WHERE id=?",
            (SECRET, sid),
        )
    report = json.loads(cli_run("status", "--json").output)
    assert report["ok"] is False and report["integrity"]["corrupt_rows"][0]["id"] == sid
    assert report["failed_jobs"][0]["error_reason"] is None  # never shown
