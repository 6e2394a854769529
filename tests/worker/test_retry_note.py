"""A retry that can succeed: after a refused answer the next attempt tells the model what was
wrong (from the stored reason code, never the answer), so a model at temperature 0, which
writes the same answer to the same prompt, is not asked the same thing again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_core.consolidation.retry_note import _NOTES, retry_note
from memory_core.records import ErrorCode, Reason
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import SECRET, capture, point_at, settings, source_row
from workers.consolidate import AttemptOutcome, consolidate_source

CONTENT = "The staging database listens on port 6543"
TERMS = [f"alias{i}" for i in range(9)]  # one more than the contract allows


def retry(home: Path, sid: str) -> AttemptOutcome:
    """The next attempt, as the worker runs it once the backoff is over."""
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("UPDATE sources SET next_due_at=0 WHERE id=?", (sid,))
    return consolidate_source(settings(), sid)


def user_text(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def deterministic(request: dict[str, Any]) -> str:
    """A model at temperature 0: the same prompt always gets the same answer. This one
    gives its claim nine aliases (as Qwen2.5-Coder-1.5B did) unless told that was wrong."""
    told = "too many searchTerms" in user_text(request)
    return json.dumps({"claims": [{"kind": "fact", "content": CONTENT, "searchTerms": TERMS[:8] if told else TERMS}]})


def test_the_retry_says_what_was_wrong_and_then_passes(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(default=deterministic) as server:
        point_at(server, monkeypatch)
        sid = capture(home, "remember that the staging database listens on port 6543")
        first = consolidate_source(settings(), sid)
        assert (first.error_code, first.error_reason) == ("invalid_output", "too_many_search_terms")
        again = retry(home, sid)
        assert again.status == "done", again
        before, after = (user_text(r) for r in server.requests)
    assert "refused" not in before
    assert after.startswith(before)
    assert after.endswith(
        "Your previous answer for this source was refused: a claim had too many searchTerms. "
        "Give at most 8 searchTerms per claim, each 2 to 31 characters."
    )
    assert "alias8" not in after  # the answer itself is never repeated
    row = source_row(home, sid)
    assert row.state == "done" and row.consecutive_failures == 0


def test_a_copied_host_field_is_named_and_the_answer_is_not_repeated(home: Path, model: FakeModelServer) -> None:
    model.enqueue(Reply.of_claims([{"kind": "fact", "content": CONTENT, "evidence": SECRET}]))
    sid = capture(home)
    assert consolidate_source(settings(), sid).error_reason == "extra_field:evidence"
    assert retry(home, sid).status == "done"
    asked = user_text(model.requests[1])
    assert asked.splitlines()[-1] == (
        'Your previous answer for this source was refused: it carried "evidence", which only the memory system '
        'sets. A claim has only "kind", "content", "replaces" and "searchTerms".'
    )
    assert SECRET not in asked


def test_a_failure_that_is_not_about_the_answer_adds_nothing(home: Path, model: FakeModelServer) -> None:
    model.enqueue(Reply(status=503))
    sid = capture(home)
    assert consolidate_source(settings(), sid).error_code == "unavailable"
    assert retry(home, sid).status == "done"
    assert "refused" not in user_text(model.requests[1])


# Every reason an answer can be refused for (invalid output, output limit, the write guards);
# the rest concern the request, the store or the worker.
NOT_ABOUT_THE_ANSWER = {
    "invalid_value",  # a catch-all: the general note
    "content_filter",  # the server's filter, not the answer's form
    "origin_changed",
    "connect_failed",
    "bad_url",
    "response_not_json",
    "response_too_large",
    "no_choices",
    "deadline",
    "lease_expired",
    "internal_error",
    # an agent's CLI as the model (workers/providers): the run, not its answer
    "cli_missing",
    "cli_exit",
    "cli_error",
    "not_logged_in",
    "no_model_reported",
}
ANSWER_REASONS = [r for r in Reason if r.value not in NOT_ABOUT_THE_ANSWER and not r.value.startswith("http_")]


@pytest.mark.parametrize("reason", ANSWER_REASONS, ids=str)
def test_every_refusal_of_an_answer_has_its_own_note(reason: Reason) -> None:
    assert reason.value in _NOTES


def test_the_note_follows_the_stored_failure(home: Path) -> None:
    fresh = source_row(home, capture(home))
    assert retry_note(fresh) is None
    timed_out = fresh.model_copy(
        update={"consecutive_failures": 1, "last_error_code": ErrorCode.TIMEOUT, "last_error_reason": "deadline"}
    )
    assert retry_note(timed_out) is None
    rejected = fresh.model_copy(
        update={
            "consecutive_failures": 2,
            "last_error_code": ErrorCode.WRITE_REJECTED,
            "last_error_reason": "unknown_replacement_id",
        }
    )
    assert "not one of the candidates shown" in (retry_note(rejected) or "")
