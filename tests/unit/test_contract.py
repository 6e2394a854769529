"""The model output contract: what is accepted, and that every defect rejects the batch."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory_core.consolidation.contract import (
    CLAIMS_MAX,
    OUTPUT_MAX_BYTES,
    ModelBatch,
    Proposal,
    parse_model_output,
)
from memory_core.errors import InvalidModelOutput, MemevoError

TARGET = "0123456789abcdef01234567"


def claim(**fields: Any) -> dict[str, Any]:
    return {"kind": "fact", "content": "The project stores claims in SQLite", **fields}


def answer(*claims: dict[str, Any], **top: Any) -> str:
    return json.dumps({"claims": list(claims), **top}, ensure_ascii=False)


def rejected(text: str) -> InvalidModelOutput:
    with pytest.raises(InvalidModelOutput) as info:
        parse_model_output(text)
    return info.value


def test_valid_batch_is_parsed() -> None:
    text = answer(
        claim(searchTerms=["SQLite", "数据库"]),
        claim(kind="decision", content="Use httpx for the model client", replaces=TARGET),
        claim(kind="preference", content="  Prefers tabs  "),
        claim(kind="project_state", content="Migration 3 is applied"),
    )
    batch = parse_model_output(text)
    assert isinstance(batch, ModelBatch)
    assert [c.kind for c in batch.claims] == ["fact", "decision", "preference", "project_state"]
    assert batch.claims[0].search_terms == ["SQLite", "数据库"]
    assert batch.claims[1].replaces == TARGET
    assert batch.claims[2].content == "Prefers tabs"
    assert batch.claims[3].replaces is None and batch.claims[3].search_terms == []


def test_empty_claims_list_is_a_valid_answer() -> None:
    assert parse_model_output('{"claims": []}').claims == []


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "```\n{}\n```", "  ```JSON\n{}```  \n"])
def test_outer_markdown_fence_is_tolerated(fence: str) -> None:
    batch = parse_model_output(fence.replace("{}", answer(claim())))
    assert len(batch.claims) == 1


def test_search_terms_are_sanitized_and_deduplicated() -> None:
    batch = parse_model_output(answer(claim(searchTerms=["  data\u200b  base\n", "Data Base", "ab"])))
    assert batch.claims[0].search_terms == ["data base", "ab"]


def test_a_search_term_holding_a_secret_is_dropped() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    batch = parse_model_output(answer(claim(searchTerms=["release tags", token, f"token {token}"])))
    assert batch.claims[0].search_terms == ["release tags"]


def test_null_optional_fields_mean_absent() -> None:
    batch = parse_model_output(answer(claim(replaces=None, searchTerms=None)))
    assert batch.claims[0].replaces is None and batch.claims[0].search_terms == []


def test_content_length_counts_characters_not_bytes() -> None:
    batch = parse_model_output(answer(claim(content="数" * 480)))
    assert len(batch.claims[0].content) == 480


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        pytest.param("{not json", "not valid JSON", id="bad-json"),
        pytest.param("", "empty", id="empty"),
        pytest.param("Sure! Here are the claims: {}", "not valid JSON", id="prose"),
        pytest.param("[]", "not a JSON object", id="array"),
        pytest.param('"claims"', "not a JSON object", id="string"),
        pytest.param("{}", "claims: required field missing", id="no-claims"),
        pytest.param(answer(claim(), notes="x"), "field not allowed", id="extra-top-level"),
        pytest.param(answer(claim(extra=1)), "field not allowed", id="extra-field"),
        pytest.param(answer(claim(evidence={"basis": "user"})), "claims[0].evidence", id="evidence"),
        pytest.param(answer(claim(confidence=0.99)), "claims[0].confidence", id="confidence"),
        pytest.param(answer(claim(verification="verified")), "set by the host", id="verification"),
        pytest.param(answer(claim(utility="useful")), "set by the host", id="utility"),
        pytest.param(answer(claim(feedback={})), "set by the host", id="feedback"),
        pytest.param(answer(claim(status="active")), "set by the host", id="status"),
        pytest.param(answer(claim(id=TARGET)), "set by the host", id="id"),
        pytest.param(answer(*[claim()] * (CLAIMS_MAX + 1)), "too many claims", id="17-claims"),
        pytest.param(answer(claim(content="abc")), "too short", id="3-characters"),
        pytest.param(answer(claim(content="   ab\x00c   ")), "too short", id="short-after-strip"),
        pytest.param(answer(claim(content="x" * 481)), "too long", id="481-characters"),
        pytest.param(answer(claim(kind="fcat")), "kind must be", id="unknown-kind"),
        pytest.param(answer(claim(content=1234)), "not a string", id="content-number"),
        pytest.param(answer(claim(searchTerms="sqlite")), "not a list", id="terms-string"),
        pytest.param(
            answer(claim(searchTerms=["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"])),
            "too many search terms",
            id="9-terms",
        ),
        pytest.param(answer(claim(searchTerms=["x" * 65])), "2-64 characters", id="65-char-term"),
        pytest.param(answer(claim(searchTerms=["x"])), "2-64 characters", id="1-char-term"),
        pytest.param(answer(claim(searchTerms=[" \t\n "])), "2-64 characters", id="blank-term"),
        pytest.param(
            answer(claim(searchTerms=[f"{i}" + "数" * 60 for i in range(8)])), "1024 bytes", id="terms-json-too-large"
        ),
        pytest.param(answer(claim(replaces="not-an-id")), "not a claim id", id="replaces-not-id"),
        pytest.param(answer(claim(replaces=TARGET.upper())), "not a claim id", id="replaces-uppercase"),
        pytest.param(answer(claim(replaces=7)), "not a string", id="replaces-number"),
        pytest.param('{"claims": [], "claims": []}', "duplicate key", id="duplicate-key"),
        pytest.param('{"claims": [{"kind": "fact", "content": NaN}]}', "NaN", id="nan"),
        pytest.param('{"claims": ' + "[" * 5000, "not valid JSON", id="deep-nesting"),
        pytest.param(answer(claim(content="bad \ud800 surrogate")), "invalid character", id="surrogate"),
        pytest.param("```python\n" + answer(claim()) + "\n```", "not valid JSON", id="other-fence"),
    ],
)
def test_malformed_answer_rejects_the_whole_batch(text: str, fragment: str) -> None:
    error = rejected(text)
    assert fragment in error.reason
    assert isinstance(error, MemevoError)


def test_oversized_answer_is_rejected_before_parsing() -> None:
    padding = " " * OUTPUT_MAX_BYTES
    error = rejected(answer(claim()) + padding)
    assert "64000 bytes" in error.reason
    # The same answer just under the limit is fine.
    parse_model_output(answer(claim()) + padding[: OUTPUT_MAX_BYTES - len(answer(claim()))])


def test_byte_limit_counts_utf8_bytes() -> None:
    # 25,000 three-byte characters: fewer than 64,000 characters, more than 64,000 bytes.
    rejected(answer(claim()) + "\u3000" * 25_000)


def test_one_bad_claim_among_good_ones_rejects_all() -> None:
    error = rejected(answer(claim(), claim(), claim(content="no")))
    assert error.reason.startswith("claims[2].content")


def test_reason_never_echoes_model_text() -> None:
    secret = "sk-live-THIS-SHOULD-NOT-APPEAR"
    for text in (
        answer(claim(**{secret: 1})),
        answer(claim(kind=secret)),
        answer(claim(content=secret * 40)),
        answer(claim(searchTerms=[secret * 3])),
        answer(claim(replaces=secret)),
        secret,
    ):
        error = rejected(text)
        assert secret not in str(error) and "THIS-SHOULD" not in error.reason
        assert len(error.reason) <= InvalidModelOutput.REASON_MAX_CHARS


def test_python_callers_use_the_json_alias() -> None:
    proposed = Proposal.model_validate({"kind": "fact", "content": "abcd", "searchTerms": ["ab"]})
    assert proposed.search_terms == ["ab"]
    with pytest.raises(ValueError):
        Proposal.model_validate({"kind": "fact", "content": "abcd", "search_terms": ["ab"]})
