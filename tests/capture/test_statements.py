"""The user-statement classifier: the labelled corpus, the reported examples, reasons and bounds.

The corpus (tests/data/statements/{en,zh}.jsonl) holds realistic messages a developer types
to a coding agent, labelled by hand: ``label`` is true when the message states a standing
requirement, preference, decision or convention (or asks explicitly to remember something).
``split`` tells how each message was used: ``dev`` messages were written before the
classifier and used to shape it; ``heldout1`` and ``heldout2`` were written later and first
measured untouched (docs/statements.md reports those first measurements).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memory_core.capture.cues import explicit_statements, is_recall_question
from memory_core.capture.statements import statement_en, statements
from memory_core.capture.statements.statements import (
    MAX_SCAN_CHARS,
    MAX_UNIT_CHARS,
    MAX_UNITS,
    classify_statement,
)
from tests.support.processes import REPO

CORPUS = Path(__file__).resolve().parents[1] / "data" / "statements"
# Floors, set from the measured values (docs/statements.md) with a little headroom.
FLOORS = {"en": (0.96, 0.95), "zh": (0.97, 0.95)}  # (precision, recall) over the whole corpus
HELDOUT_FLOORS = (0.90, 0.85)  # the last held-out batch alone


def load(language: str) -> list[dict]:
    with open(CORPUS / f"{language}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def scores(rows: list[dict]) -> tuple[float, float, list[str]]:
    tp = fp = fn = 0
    wrong = []
    for row in rows:
        decision = classify_statement(row["text"])
        if decision.captured and row["label"]:
            tp += 1
        elif decision.captured:
            fp += 1
            wrong.append(f"FP {row['text']!r}: {decision.reason}")
        elif row["label"]:
            fn += 1
            wrong.append(f"FN {row['text']!r}: {decision.reason}")
    return tp / max(tp + fp, 1), tp / max(tp + fn, 1), wrong


@pytest.mark.parametrize("language", ["en", "zh"])
def test_corpus_is_large_balanced_and_well_formed(language: str) -> None:
    rows = load(language)
    assert len(rows) >= 150
    assert all(set(row) == {"text", "label", "note", "split"} for row in rows)
    assert all(isinstance(row["label"], bool) and row["text"].strip() and row["note"] for row in rows)
    assert len({row["text"] for row in rows}) == len(rows), "duplicate messages"
    positive = sum(row["label"] for row in rows) / len(rows)
    assert 0.4 <= positive <= 0.6
    assert {row["split"] for row in rows} == {"dev", "heldout1", "heldout2"}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_precision_and_recall_over_the_corpus(language: str) -> None:
    precision, recall, wrong = scores(load(language))
    floor_p, floor_r = FLOORS[language]
    assert precision >= floor_p and recall >= floor_r, (precision, recall, wrong)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_precision_and_recall_on_the_last_held_out_batch(language: str) -> None:
    precision, recall, wrong = scores([row for row in load(language) if row["split"] == "heldout2"])
    assert precision >= HELDOUT_FLOORS[0] and recall >= HELDOUT_FLOORS[1], (precision, recall, wrong)


# --- the reported examples, one by one-------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "we use pnpm in this repo, not npm",
        "we use pnpm here, not npm",
        "Use pytest -x for tests.",
        "以后提交前先跑测试",
        "这个项目用 pnpm",
        # explicit cues keep working
        "remember that the staging DB is on port 5433",
        "记住：发布前要跑全部测试",
        "From now on, always use pnpm",
        "I prefer small, focused commits.",
    ],
)
def test_issue_statements_are_captured(text: str) -> None:
    decision = classify_statement(text)
    assert decision.captured, decision.reason
    assert decision.text == text  # one statement: the whole message, in the user's words


@pytest.mark.parametrize(
    "text",
    [
        "I did not note any errors in the log",
        "This test always fails on CI",
        "never mind, lets look at the parser",
        "It always crashes when I open settings",
        "do you remember the staging port?",
        "Do you remember what we decided about the cache?",
        "还记得端口吗",
        "你还记得我们之前对缓存是怎么决定的吗？",
    ],
)
def test_issue_non_statements_are_not_captured(text: str) -> None:
    decision = classify_statement(text)
    assert not decision.captured and decision.text == "", decision.reason


def test_recall_questions() -> None:
    assert is_recall_question("Do you remember the port?")
    assert is_recall_question("还记得端口吗")
    assert is_recall_question("ok. what did we decide about logging?")
    assert not is_recall_question("Remember that the port is 5433.")
    assert not is_recall_question("What does this function return?")  # a question, not a recall request


# --- reasons -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "reason"),
    [
        ("Use pytest -x for tests.", "requirement", "policy verb 'use'"),
        ("we deploy on Tuesdays", "convention", "'we … deploy'"),
        ("I prefer small, focused commits.", "preference", "'i prefer'"),
        ("We decided to go with Postgres.", "decision", "'we decided'"),
        ("remember that the staging DB is on port 5433", "fact", "explicit cue 'remember that'"),
        ("Always run the linter before committing.", "requirement", "'always …'"),
        ("I did not note any errors in the log", None, "narration: past tense 'did'"),
        ("This test always fails on CI", None, "failure complaint: 'fails'"),
        ("never mind, lets look at the parser", None, "one-off suggestion: 'let's look'"),
        ("fix the failing test in parser.py", None, "one-off task: imperative 'fix'"),
        ("do you remember the staging port?", None, "recall request"),
        ("Why is the build so slow?", None, "question: ends with '?'"),
        ("The docs say never call close() twice.", None, "quote: reported words"),
        ("以后提交前先跑测试", "requirement", "standing rule: '以后'"),
        ("这个测试在 CI 上总是失败", None, "failure complaint: '失败'"),
        ("我昨天跑了迁移，没有问题", None, "narration"),
        ("帮我跑一下测试", None, "one-off task: '一下'"),
    ],
)
def test_the_reason_names_the_rule(text: str, kind: str | None, reason: str) -> None:
    decision = classify_statement(text)
    assert decision.kind == kind
    assert reason in decision.reason, decision.reason


def test_pasted_logs_code_and_quotes_are_skipped() -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\n'
        "ValueError: always use pnpm"
    )
    assert classify_statement(traceback).reason.startswith("pasted text")
    fenced = "```\n# from now on we always use tabs\nindent = '\\t'\n```"
    assert not classify_statement(fenced).captured
    quoted = "> From now on, always use pnpm.\n> Never use npm.\nwho wrote this?"
    assert not classify_statement(quoted).captured
    assert not classify_statement("Assistant said: I'll always run the tests before committing.").captured


# --- what is captured ----------------------------------------------------------------------


def test_only_the_statement_sentences_are_captured_from_chatter() -> None:
    message = "ok thanks, that fixed it. btw we use pnpm here, not npm. can you now look at the parser?"
    decision = classify_statement(message)
    assert decision.kind == "convention"
    assert decision.text == "btw we use pnpm here, not npm."
    assert [s.kind for s in decision.sentences] == [None, "convention", None]


def test_a_list_under_a_header_is_captured_with_its_header() -> None:
    message = "Some ground rules for this repo:\n- pnpm only\n- no default exports\n\nAlso, fix the login bug."
    assert classify_statement(message).text == "Some ground rules for this repo:\n- pnpm only\n- no default exports"
    assert classify_statement("记住这些：\n- staging 端口 5433\n- 生产端口 5432").text == (
        "记住这些：\n- staging 端口 5433\n- 生产端口 5432"
    )


def test_statement_after_a_pasted_log_keeps_only_the_users_words() -> None:
    message = "here's the log:\n```\nERROR x\n```\nfrom now on, always run the tests with -x"
    assert classify_statement(message).text == "from now on, always run the tests with -x"


def test_explicit_statements_keeps_the_list_api() -> None:
    messages = [
        "remember that the staging DB is on port 5433",
        "记住：发布前要跑全部测试",
        "do you remember the staging port?",
        "what's up",
        "From now on, always use pnpm",
        "还记得端口吗",
        "fix the tests please",
        "",
    ]
    assert explicit_statements(messages) == [messages[0], messages[1], messages[4]]
    assert explicit_statements([]) == []


def test_mixed_language_sentences_use_the_rules_of_their_main_language() -> None:
    assert classify_statement("GitHub Actions 一律锁定到 commit SHA").kind == "requirement"
    assert classify_statement("Answer in 中文 even if I write in English.").kind == "requirement"


# --- bounded work -------------------------------------------------------------------------------


def test_a_huge_message_is_read_only_up_to_the_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    original = statement_en.classify

    def counting(sentence: str) -> tuple[str | None, str]:
        seen.append(sentence)
        return original(sentence)

    monkeypatch.setattr(statement_en, "classify", counting)
    megabyte = "The parser is slow today. " * 40_000  # ~1 MB of prose
    decision = classify_statement(megabyte + "From now on, always use pnpm.")
    assert decision.scanned_chars == MAX_SCAN_CHARS
    assert len(decision.sentences) <= MAX_UNITS and len(seen) <= MAX_UNITS
    assert not decision.captured  # the statement lies beyond the bound
    assert classify_statement("From now on, always use pnpm. " + megabyte).captured

    seen.clear()
    one_line = "x" * 1_000_000  # no sentence breaks at all
    decision = classify_statement(one_line)
    assert decision.scanned_chars == MAX_SCAN_CHARS and not decision.captured
    assert all(len(sentence) <= MAX_UNIT_CHARS for sentence in seen)

    seen.clear()
    many_lines = "- use pnpm\n" * 100_000
    decision = classify_statement(many_lines)
    assert len(decision.sentences) == MAX_UNITS == len(seen)
    assert decision.sentences[-1].end <= MAX_SCAN_CHARS


def test_english_turns_do_not_load_the_chinese_rules() -> None:
    probe = (
        "import sys\nfrom memory_core.capture.cues import explicit_statements\n"
        "assert explicit_statements(['we use pnpm here, not npm']) == ['we use pnpm here, not npm']\n"
        "assert 'memory_core.capture.statements.statement_zh' not in sys.modules\n"
        "assert explicit_statements(['这个项目用 pnpm']) == ['这个项目用 pnpm']\n"
        "assert 'memory_core.capture.statements.statement_zh' in sys.modules\n"
        "assert not {'pydantic', 'memory_core.records', 'sqlite3'} & set(sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_statements_module_reexports() -> None:
    assert statements.KINDS == ("requirement", "preference", "decision", "convention", "fact")
