"""Structured output: the worker asks for the contract's JSON schema in the spellings of the
common servers (OpenAI's ``json_schema``, llama.cpp's ``json_object`` with a schema, vLLM's
``guided_json``), then plain JSON mode, then nothing; it steps down within one attempt when a
server refuses the way it asked (400, 422, or a server error that says so), and remembers
what worked for that server and model, in memory.db, for every worker process."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.consolidation.contract import response_schema
from memory_core.jobs.model_state import remembered_json_mode
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, point_at, settings, source_row, state_bytes, worker_log
from workers.consolidate import consolidate_source


def formats(server: FakeModelServer) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def sent_modes(server: FakeModelServer) -> list[str]:
    """The JSON mode each request asked in, read from what it carried."""
    modes = []
    for request in server.requests:
        fmt = request.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            modes.append("schema")
        elif fmt.get("type") == "json_object":
            modes.append("object_schema" if "schema" in fmt else "object")
        else:
            modes.append("guided_json" if "guided_json" in request else "off")
    return modes


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


def test_400_on_the_schema_steps_down_once_and_remembers(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(reject_params=["response_format.type=json_schema"]) as server:
        point_at(server, monkeypatch)
        assert consolidate_source(settings(), capture(home, "remember that alpha runs on port 1")).status == "done"
        assert sent_modes(server) == ["schema", "object_schema"]
        assert remembered(home, server) == "object_schema"
        # Another attempt (any worker process: it reads memory.db) goes straight to what works.
        assert consolidate_source(settings(), capture(home, "remember that beta runs on port 2")).status == "done"
        assert sent_modes(server) == ["schema", "object_schema", "object_schema"]


def test_llama_cpp_python_500_on_json_schema_settles_on_its_own_spelling(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server of the issue: HTTP 500 "Input should be 'text' or 'json_object'" to a
    # json_schema response format. Auto stepped down on 400 only, so nothing was learned.
    with FakeModelServer(behave_like="llama-cpp-python") as server:
        point_at(server, monkeypatch)
        sid = capture(home)
        outcome = consolidate_source(settings(), sid)
        assert outcome.status == "done", outcome
        assert sent_modes(server) == ["schema", "object_schema"]
        assert server.requests[1]["response_format"] == {"type": "json_object", "schema": response_schema()}
        assert remembered(home, server) == "object_schema"
        assert source_row(home, sid).attempt == 1  # one attempt, one counted call
        assert consolidate_source(settings(), capture(home, "remember that beta runs on port 2")).status == "done"
        assert sent_modes(server)[2:] == ["object_schema"]
        # The error body was read to decide, never kept.
        assert b"Input should be" not in state_bytes(home)
        assert "using object_schema from now on" in worker_log(home)


def test_an_old_vllm_gets_guided_json(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(behave_like="old-vllm") as server:
        point_at(server, monkeypatch)
        assert consolidate_source(settings(), capture(home)).status == "done"
        assert sent_modes(server) == ["schema", "object_schema", "guided_json"]
        assert server.requests[2]["guided_json"] == response_schema()
        assert remembered(home, server) == "guided_json"


def test_lm_studio_takes_the_schema_first(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(behave_like="lm-studio") as server:
        point_at(server, monkeypatch)
        assert consolidate_source(settings(), capture(home)).status == "done"
        assert sent_modes(server) == ["schema"]
        assert remembered(home, server) is None


def test_a_server_refusing_every_json_mode_gets_none(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(behave_like="strict-openai", reject_params=["response_format"]) as server:
        point_at(server, monkeypatch)
        sid = capture(home)
        assert consolidate_source(settings(), sid).status == "done"
        assert sent_modes(server) == ["schema", "object_schema", "guided_json", "object", "off"]
        assert remembered(home, server) == "off"
        assert source_row(home, sid).attempt == 1  # one attempt, one counted call
        consolidate_source(settings(), capture(home, "remember that gamma runs on port 3"))
        assert sent_modes(server)[5:] == ["off"]


def test_422_is_a_refusal_too(home: Path, model: FakeModelServer) -> None:
    model.enqueue(Reply(status=422))
    assert consolidate_source(settings(), capture(home)).status == "done"
    assert sent_modes(model) == ["schema", "object_schema"]
    assert remembered(home, model) == "object_schema"


def test_a_server_error_that_does_not_name_the_format_does_not_step_down(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeModelServer(behave_like="overloaded") as server:
        point_at(server, monkeypatch)
        outcome = consolidate_source(settings(), capture(home))
        assert (outcome.error_code, outcome.error_reason) == ("unavailable", "http_500")
        assert sent_modes(server) == ["schema"]
        assert remembered(home, server) is None


def test_memory_is_per_server_and_model(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(reject_params=["response_format.type=json_schema"]) as server:
        point_at(server, monkeypatch)
        consolidate_source(settings(), capture(home, "remember that alpha runs on port 1"))
        point_at(server, monkeypatch, model_name="other-model")
        consolidate_source(settings(), capture(home, "remember that beta runs on port 2"))
        assert sent_modes(server) == ["schema", "object_schema", "schema", "object_schema"]
        assert remembered(home, server, "other-model") == "object_schema"


def test_a_400_that_is_not_about_response_format_is_a_provider_failure(home: Path, model: FakeModelServer) -> None:
    model.enqueue(*[Reply(status=400)] * 5)
    outcome = consolidate_source(settings(), capture(home))
    assert (outcome.error_code, outcome.error_reason) == ("provider", "http_400")
    assert sent_modes(model) == ["schema", "object_schema", "guided_json", "object", "off"]
    assert remembered(home, model) is None


@pytest.mark.parametrize("mode", ["schema", "object_schema", "guided_json", "object", "off"])
def test_a_fixed_mode_is_used_as_set_without_fallback(home: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", mode.upper())
    with FakeModelServer(behave_like="strict-openai", reject_params=["response_format"]) as server:
        point_at(server, monkeypatch)
        outcome = consolidate_source(settings(), capture(home))
        assert sent_modes(server) == [mode]
        assert outcome.status == ("done" if mode == "off" else "failed")
        if mode != "off":
            assert (outcome.error_code, outcome.error_reason) == ("provider", "http_400")
        assert remembered(home, server) is None


def test_an_unknown_mode_is_a_config_error(cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", "yaml")
    result = cli_run("status")
    assert result.exit_code == 2 and "MEMEVO_MODEL_JSON_MODE" in result.output
    assert "auto, schema, object_schema, guided_json, object or off" in result.output
