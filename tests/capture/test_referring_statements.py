"""Sources that carry their subject: a statement that refers back ("it", "that one", "它")
is captured with the sentence it refers to, so the consolidating model can tell what it
says and what it replaces. English and Chinese; the classifier alone, then real hook
processes writing real sources."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_core.capture.cues import explicit_statements
from memory_core.capture.statements.statement_reference import refers_back
from memory_core.capture.statements.statements import classify_statement
from tests.support.processes import memevo_process

WITH_SUBJECT = [
    # (message, what is captured)
    (
        "The staging database is on db2. Remember that it now listens on port 6544, not 6543.",
        "The staging database is on db2. Remember that it now listens on port 6544, not 6543.",
    ),
    (
        "We tried requests and httpx. Remember that the latter is what we use now.",
        "We tried requests and httpx. Remember that the latter is what we use now.",
    ),
    (
        "Thanks! The billing service sends the invoices. From now on, it must be called through the gateway.",
        "The billing service sends the invoices. From now on, it must be called through the gateway.",
    ),
    (
        "生产环境的日志在 /var/log/shop/app.log。记住：它保留 30 天，不是 14 天。",
        "生产环境的日志在 /var/log/shop/app.log。记住：它保留 30 天，不是 14 天。",
    ),
    (
        "我们换了日志服务。以后它的日志统一放在 /var/log/shop 下面。",
        "我们换了日志服务。以后它的日志统一放在 /var/log/shop 下面。",
    ),
]


@pytest.mark.parametrize(("message", "captured"), WITH_SUBJECT)
def test_a_statement_that_refers_back_is_captured_with_its_subject(message: str, captured: str) -> None:
    decision = classify_statement(message)
    assert decision.captured, decision.reason
    assert decision.text == captured


@pytest.mark.parametrize(
    ("message", "captured"),
    [
        # The subject is named: nothing before it is needed.
        ("ok thanks. btw we use pnpm here, not npm. can you look at the parser?", "btw we use pnpm here, not npm."),
        ("The build is green. This project uses Poetry.", "This project uses Poetry."),
        ("看一下日志。这个项目用 pnpm。", "这个项目用 pnpm。"),
        ("Nice work. Remember that the staging database listens on port 6543.", None),
    ],
)
def test_a_statement_that_names_its_subject_is_captured_alone(message: str, captured: str | None) -> None:
    decision = classify_statement(message)
    expected = captured or message.split(". ", 1)[1]
    assert decision.text == expected


@pytest.mark.parametrize(
    ("sentence", "refers"),
    [
        ("It now listens on port 6544.", True),
        ("remember that it now listens on port 6544", True),
        ("Correction: that one is deprecated, use httpx", True),
        ("They must be reversible.", True),
        ("These are the rules from now on.", True),
        ("This project uses Poetry.", False),
        ("That function must stay pure.", False),
        ("Italics are fine in docs.", False),  # "It…" is not "it"
        ("Remember that the API is versioned.", False),
        ("记住：它保留 30 天", True),
        ("后者是我们现在用的", True),
        ("那个现在不要用了", True),
        ("这个项目用 pnpm", False),
        ("其他服务不受影响", False),
    ],
)
def test_what_refers_back(sentence: str, refers: bool) -> None:
    assert refers_back(sentence) is refers


def test_a_message_that_opens_by_referring_back_takes_the_last_sentence_before_it() -> None:
    messages = [
        "Can you check the deploy? The staging database moved to db2 last night.",
        "Remember that it now listens on port 6544, not 6543.",
    ]
    assert explicit_statements(messages) == [
        "The staging database moved to db2 last night.\nRemember that it now listens on port 6544, not 6543."
    ]
    alone = "记住：它现在监听 6544 端口，不是 6543。"
    assert explicit_statements([alone]) == [alone]  # nothing before it to take


# --- through real hook processes ---------------------------------------------------------


def hook_turn(messages: list[str]) -> None:
    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test-agent",
        "event": "turn_end",
        "session_id": "sess-ref",
        "cwd": "/tmp",
        "user_messages": messages,
    }
    result = memevo_process("hook", "turn_end", input=json.dumps(payload))
    assert result.returncode == 0 and result.stdout == "", result.stderr


def statement_texts(home: Path) -> list[str]:
    conn = sqlite3.connect(home / "memory.db")
    try:
        rows = conn.execute("SELECT body FROM sources WHERE source_type='user_statement' ORDER BY rowid").fetchall()
    finally:
        conn.close()
    return [json.loads(body)["text"] for (body,) in rows]


@pytest.mark.slow
@pytest.mark.sqlite_only  # hook processes open memory.db; on PostgreSQL they go through the gateway
def test_hook_processes_capture_the_subject_with_the_statement(home: Path) -> None:
    hook_turn(["The staging database is on db2. Remember that it now listens on port 6544, not 6543."])
    hook_turn(["生产环境的日志在 /var/log/shop/app.log。", "记住：它保留 30 天，不是 14 天。"])
    hook_turn(["Remember that the cache is Redis 7."])
    assert statement_texts(home) == [
        "The staging database is on db2. Remember that it now listens on port 6544, not 6543.",
        "生产环境的日志在 /var/log/shop/app.log。\n记住：它保留 30 天，不是 14 天。",
        "Remember that the cache is Redis 7.",
    ]
