"""Structured output: the worker asks for JSON through ``response_format`` (the contract's
JSON schema first), steps down once per refusal when a server answers 400, and remembers
what worked for that server and model, in memory.db, for every worker process."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.consolidation.contract import response_schema
from memory_core.jobs.model_state import remembered_json_mode
from memory_core.store.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, point_at, settings, source_row
from workers.consolidate import consolidate_source


def formats(server: FakeModelServer) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def remembered(home: Path, server: FakeModelServer, model_name: str = "fake-model") -> str | None:
    with Store.open(home) as store:
        return remembered_json_mode(store.conn, server.base_url, model_name)


def test_asks_for_the_contract_as_a_strict_json_schema(home: Path, model: FakeModelServer) -> None:
    assert consolidate_source(settings(), capture(home)).status == "done"
    [request] = model.requests
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == response_schema()
    assert remembered(home, model) is None  # nothing to remember: the first choice worked


def test_schema_answers_with_nulls_pass_the_unchanged_contract(home: Path, model: FakeModelServer) -> None:
    model.enqueue(
        Reply.of_claims(
            [
                {
                    "kind": "fact",
                    "content": "The staging database listens on port 5433",
                    "replaces": None,
                    "searchTerms": None,
                }
            ]
        )
    )
    assert consolidate_source(settings(), capture(home)).status == "done"


def test_schema_mode_does_not_loosen_validation(home: Path, model: FakeModelServer) -> None:
    model.enqueue(
        Reply.of_claims(
            [
                {
                    "kind": "fact",
                    "content": "The staging database listens on port 5433",
                    "replaces": None,
                    "searchTerms": None,
                    "reason": "because",
                }
            ]
        )
    )
    outcome = consolidate_source(settings(), capture(home))
    assert (outcome.error_code, outcome.error_reason) == ("invalid_output", "extra_field:reason")


def test_400_on_the_schema_falls_back_to_json_mode_once_and_remembers(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeModelServer(reject_params=["response_format.type=json_schema"]) as server:
        point_at(server, monkeypatch)
        assert consolidate_source(settings(), capture(home, "remember that alpha runs on port 1")).status == "done"
        assert formats(server) == ["json_schema", "json_object"]
        assert remembered(home, server) == "object"
        # Another attempt (any worker process: it reads memory.db) goes straight to what works.
        assert consolidate_source(settings(), capture(home, "remember that beta runs on port 2")).status == "done"
        assert formats(server) == ["json_schema", "json_object", "json_object"]


def test_a_server_refusing_response_format_altogether_gets_none(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(reject_params=["response_format"]) as server:
        point_at(server, monkeypatch)
        sid = capture(home)
        assert consolidate_source(settings(), sid).status == "done"
        assert formats(server) == ["json_schema", "json_object", None]
        assert remembered(home, server) == "off"
        assert source_row(home, sid).attempt == 1  # one attempt, one counted call
        consolidate_source(settings(), capture(home, "remember that gamma runs on port 3"))
        assert formats(server)[3:] == [None]


def test_memory_is_per_server_and_model(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(reject_params=["response_format.type=json_schema"]) as server:
        point_at(server, monkeypatch)
        consolidate_source(settings(), capture(home, "remember that alpha runs on port 1"))
        point_at(server, monkeypatch, model_name="other-model")
        consolidate_source(settings(), capture(home, "remember that beta runs on port 2"))
        assert formats(server) == ["json_schema", "json_object", "json_schema", "json_object"]
        assert remembered(home, server, "other-model") == "object"


def test_a_400_that_is_not_about_response_format_is_a_provider_failure(home: Path, model: FakeModelServer) -> None:
    model.enqueue(Reply(status=400), Reply(status=400), Reply(status=400))
    outcome = consolidate_source(settings(), capture(home))
    assert (outcome.error_code, outcome.error_reason) == ("provider", "http_400")
    assert formats(model) == ["json_schema", "json_object", None]
    assert remembered(home, model) is None


@pytest.mark.parametrize(("mode", "sent"), [("schema", "json_schema"), ("object", "json_object"), ("off", None)])
def test_a_fixed_mode_is_used_as_set_without_fallback(
    home: Path, monkeypatch: pytest.MonkeyPatch, mode: str, sent: str | None
) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", mode.upper())
    with FakeModelServer(reject_params=["response_format"]) as server:
        point_at(server, monkeypatch)
        outcome = consolidate_source(settings(), capture(home))
        assert formats(server) == [sent]
        assert outcome.status == ("done" if sent is None else "failed")
        if sent is not None:
            assert (outcome.error_code, outcome.error_reason) == ("provider", "http_400")
        assert remembered(home, server) is None


def test_an_unknown_mode_is_a_config_error(cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", "yaml")
    result = cli_run("status")
    assert result.exit_code == 2 and "MEMEVO_MODEL_JSON_MODE" in result.output
    assert "auto, schema, object or off" in result.output
