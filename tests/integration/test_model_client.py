"""The model client against a real loopback HTTP server."""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.config import Settings, load_settings
from memory_core.consolidation.contract import parse_model_output
from memory_core.consolidation.prompt import build_messages
from memory_core.ids import source_id
from memory_core.records import ErrorCode, Source
from tests.support.fake_model import FakeModelProcess, FakeModelServer, Reply
from workers.model_call import Completion, ModelCallError
from workers.model_client import complete

KEY = "sk-test-0123456789abcdefSECRET"
MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


def settings_for(url: str, monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    monkeypatch.setenv("MEMEVO_MODEL_URL", url)
    monkeypatch.setenv("MEMEVO_MODEL", "test-model")
    for name, value in env.items():
        monkeypatch.setenv(f"MEMEVO_{name.upper()}", value)
    return load_settings()


def failure(settings: Settings) -> ModelCallError:
    with pytest.raises(ModelCallError) as info:
        complete(settings, MESSAGES)
    return info.value


def test_success_returns_text_and_usage(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.enqueue(
        Reply(content='{"claims": []}', usage={"prompt_tokens": 120, "completion_tokens": 7}, model="test-model-2024")
    )
    settings = settings_for(server.base_url, monkeypatch, model_api_key=KEY, model_output_limit="4096")
    result = complete(settings, MESSAGES)
    assert result == Completion(
        text='{"claims": []}', finish_reason="stop", model="test-model-2024", prompt_tokens=120, completion_tokens=7
    )
    [request] = server.requests
    assert request["model"] == "test-model" and request["messages"] == MESSAGES
    assert request["max_tokens"] == 4096 and request["temperature"] == 0 and request["stream"] is False
    assert "tools" not in request and "tool_choice" not in request


def test_default_request_caps_output_at_8192(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    complete(settings_for(server.base_url, monkeypatch), MESSAGES)
    assert server.requests[0]["max_tokens"] == 8192


def test_missing_usage_counts_as_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.dumps({"choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}]})
    with FakeModelServer([Reply(body=body)]) as fake:
        result = complete(settings_for(fake.base_url, monkeypatch), MESSAGES)
    assert (result.prompt_tokens, result.completion_tokens, result.model) == (0, 0, "test-model")


def test_authorization_only_with_a_key(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    complete(settings_for(server.base_url, monkeypatch), MESSAGES)
    complete(settings_for(server.base_url, monkeypatch, model_api_key=KEY), MESSAGES)
    assert [h.get("authorization") for h in server.request_headers] == [None, f"Bearer {KEY}"]


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        pytest.param(
            Reply(finish_reason="length", usage={"prompt_tokens": 5, "completion_tokens": 8192}),
            ErrorCode.OUTPUT_LIMIT,
            id="length",
        ),
        pytest.param(Reply(finish_reason="tool_calls", tool_calls=True), ErrorCode.INVALID_OUTPUT, id="tool-calls"),
        pytest.param(Reply(tool_calls=True), ErrorCode.INVALID_OUTPUT, id="tool-calls-with-stop"),
        pytest.param(Reply(finish_reason="content_filter"), ErrorCode.INVALID_OUTPUT, id="content-filter"),
        pytest.param(Reply(finish_reason="recitation"), ErrorCode.INVALID_OUTPUT, id="unknown-finish-reason"),
        pytest.param(Reply(status=500), ErrorCode.UNAVAILABLE, id="500"),
        pytest.param(Reply(status=503), ErrorCode.UNAVAILABLE, id="503"),
        pytest.param(Reply(status=429), ErrorCode.UNAVAILABLE, id="429"),
        pytest.param(Reply(status=400), ErrorCode.PROVIDER, id="400"),
        pytest.param(Reply(status=401, body=json.dumps({"error": f"bad key {KEY}"})), ErrorCode.PROVIDER, id="401"),
        pytest.param(Reply(status=302, body=""), ErrorCode.PROVIDER, id="redirect"),
        pytest.param(Reply(body="<html>gateway says hi</html>"), ErrorCode.PROVIDER, id="garbage"),
        pytest.param(Reply(body='{"choices": []}'), ErrorCode.PROVIDER, id="no-choices"),
        pytest.param(Reply(body='["not", "an", "object"]'), ErrorCode.PROVIDER, id="array"),
    ],
)
def test_failures_map_to_error_codes(reply: Reply, code: ErrorCode, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer([reply]) as fake:
        error = failure(settings_for(fake.base_url, monkeypatch, model_api_key=KEY))
        assert fake.request_count == 1
    assert error.code is code
    text = "".join(traceback.format_exception(error)) + repr(error)
    assert KEY not in text and "gateway says hi" not in text and "bad key" not in text


def test_output_limit_still_reports_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    reply = Reply(finish_reason="length", usage={"prompt_tokens": 5, "completion_tokens": 8192})
    with FakeModelServer([reply]) as fake:
        error = failure(settings_for(fake.base_url, monkeypatch))
    assert (error.prompt_tokens, error.completion_tokens) == (5, 8192)


def test_connection_refused_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer() as fake:
        url = fake.base_url
    assert failure(settings_for(url, monkeypatch)).code is ErrorCode.UNAVAILABLE


@pytest.mark.parametrize("missing", ["model_url", "model"])
def test_unconfigured_model_names_the_setting(missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_for("http://127.0.0.1:9/v1", monkeypatch)
    error = failure(settings.model_copy(update={missing: None}))
    assert error.code is ErrorCode.UNAVAILABLE and f"MEMEVO_{missing.upper()}" in str(error)


@pytest.mark.parametrize(
    "reply", [Reply(hang=True), Reply(trickle=0.05), Reply(delay=30)], ids=["hang", "trickle", "slow"]
)
def test_deadline_holds_against_a_server_that_never_finishes(reply: Reply, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer([reply]) as fake:
        settings = settings_for(
            fake.base_url, monkeypatch, attempt_seconds="1", first_call_seconds="1", model_api_key=KEY
        )
        started = time.monotonic()
        error = failure(settings)
        elapsed = time.monotonic() - started
    assert error.code is ErrorCode.TIMEOUT
    assert 0.9 <= elapsed < 3
    assert KEY not in str(error)


def test_abandoned_exchange_does_not_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer([Reply(trickle=0.05)]) as fake:
        failure(settings_for(fake.base_url, monkeypatch, attempt_seconds="1", first_call_seconds="1"))
        time.sleep(0.3)  # the next trickled byte arrives after the deadline and ends the thread
        assert not any(t.name == "memevo-model-call" for t in threading.enumerate())


def test_default_reply_is_a_valid_batch_per_source(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_for(server.base_url, monkeypatch)
    contents = set()
    for text in ("We switched CI to GitHub Actions.", "用户喜欢简短的回答。", "Deploy target is fly.io"):
        source = Source(
            id=source_id(text),
            origin="/work/app",
            source_type="summary",
            dedupe_key=text,
            created_at=1_700_000_000.0,
            text=text,
        )
        batch = parse_model_output(complete(settings, build_messages(source, [])).text)
        contents.update(claim.content for claim in batch.claims)
    assert len(contents) == 3 and server.request_count == 3


@pytest.mark.slow
def test_fake_server_as_a_separate_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelProcess(tmp_path, [Reply(status=500), {"content": '{"claims": []}'}]) as fake:
        settings = settings_for(fake.base_url, monkeypatch)
        assert failure(settings).code is ErrorCode.UNAVAILABLE
        assert complete(settings, MESSAGES).text == '{"claims": []}'
        assert (
            "Noted: "
            in complete(
                settings,
                build_messages(
                    Source(
                        id="a" * 24,
                        origin="/o",
                        source_type="summary",
                        dedupe_key="k",
                        created_at=0.0,
                        text="Remember the port",
                    ),
                    [],
                ),
            ).text
        )
        assert fake.request_count() == 3
        assert [r["max_tokens"] for r in fake.requests()] == [8192] * 3
    assert fake.process is not None and fake.process.returncode == 0
