"""Issue 30, items 3 and 4, through a real ``memevo hook`` process (the generic protocol's
``user_prompt``, on both backends): a follow-up after a task stated with a verb of need,
obligation or request is answered about the task's object, and a question about a subject
no claim names prints nothing, in English and Chinese."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.hooks.support import hook_process
from tests.support.hook_gateway import gateway_for

pytestmark = pytest.mark.slow

CLAIMS = (
    "Redis listens on port 6380 in development",
    "The widget API server listens on port 8081",
    "支付服务监听 9090 端口",
    "订单服务监听 8181 端口",
    "The nginx reverse proxy config lives in /etc/nginx/conf.d/widget.conf",
)


@pytest.fixture(autouse=True)
def gateway(home: Path, backend: str, tmp_path: Path) -> Iterator[None]:
    with Store.open(home) as store:
        for content in CLAIMS:
            seed(store, make_memory(content, origin="/work/app", at=clock.now() - 3600))
    with gateway_for(home, backend, tmp_path / "serve.log"):
        yield


def digest(history: list[str], prompt: str) -> str:
    payload = {
        "schema": "memevo.hook/v1",
        "session_id": "s",
        "cwd": "/work/app",
        "user_messages": history,
        "prompt": prompt,
    }
    result = hook_process(json.dumps(payload), "user_prompt")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return result.stdout.decode()


@pytest.mark.parametrize(
    ("opening", "question", "answer", "not_answer"),
    [
        ("I need to fix the widget API server", "which port does it listen on?", "8081", "6380"),
        ("We should debug the widget API server", "port?", "8081", "6380"),
        ("我们得检查一下订单服务", "它监听哪个端口？", "8181", "9090"),
        ("我们来修一下订单服务", "端口是多少？", "8181", "9090"),
    ],
)
def test_a_follow_up_after_a_stated_task_is_answered(opening: str, question: str, answer: str, not_answer: str) -> None:
    printed = digest([opening], question)
    assert answer in printed and not_answer not in printed


@pytest.mark.parametrize(
    "question",
    [
        "what port does the Traefik reverse proxy listen on?",
        "what is the Kafka broker port number?",
        "计费网关服务器用哪个端口？",
    ],
)
def test_a_question_about_an_unknown_subject_prints_nothing(question: str) -> None:
    assert digest([], question) == ""
