"""The answer's JSON schema carries the validator's limits: every document the validator
refuses for a limit a schema can state is refused by the schema too, so a server decoding
under the schema cannot write an answer the validator rejects."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.consolidation.contract import (
    CLAIMS_MAX,
    CONTENT_MAX_CHARS,
    CONTENT_MIN_CHARS,
    SCHEMA_SEARCH_TERM_MAX_CHARS,
    SEARCH_TERM_MAX_CHARS,
    SEARCH_TERM_MIN_CHARS,
    SEARCH_TERMS_MAX,
    Proposal,
    parse_model_output,
    response_schema,
)
from memory_core.errors import InvalidModelOutput
from memory_core.records import KINDS

TARGET = "0123456789abcdef01234567"
VALIDATOR = jsonschema.Draft202012Validator(response_schema())


def claim(**fields: Any) -> dict[str, Any]:
    return {
        "kind": "fact",
        "content": "The staging database listens on port 6543",
        "replaces": None,
        "searchTerms": None,
        **fields,
    }


def doc(*claims: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"claims": list(claims), **top}


def without(name: str) -> dict[str, Any]:
    out = claim()
    del out[name]
    return out


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(response_schema())


def test_its_fields_are_the_validators() -> None:
    item = response_schema()["properties"]["claims"]["items"]
    names = sorted(field.alias or name for name, field in Proposal.model_fields.items())
    assert sorted(item["properties"]) == names == sorted(item["required"])
    assert item["additionalProperties"] is False and response_schema()["additionalProperties"] is False
    assert item["properties"]["kind"]["enum"] == list(KINDS)


# (document, what the validator calls it): each breaks one limit of the contract.
BROKEN = [
    pytest.param(doc(*[claim()] * (CLAIMS_MAX + 1)), "too many claims", id="too-many-claims"),
    pytest.param(doc(claim(searchTerms=[f"t{i}" for i in range(SEARCH_TERMS_MAX + 1)])), "too many", id="terms"),
    pytest.param(doc(claim(content="x" * (CONTENT_MAX_CHARS + 1))), "too long", id="content-long"),
    pytest.param(doc(claim(content="x" * (CONTENT_MIN_CHARS - 1))), "too short", id="content-short"),
    pytest.param(doc(claim(searchTerms=["x" * (SEARCH_TERM_MIN_CHARS - 1)])), "characters", id="term-short"),
    pytest.param(doc(claim(searchTerms=["x" * (SEARCH_TERM_MAX_CHARS + 1)])), "characters", id="term-long"),
    # 8 aliases of 40 emoji: each within 64 characters, together over 1,024 bytes.
    pytest.param(doc(claim(searchTerms=[f"{i}" + "😀" * 39 for i in range(8)])), "bytes", id="terms-bytes"),
    pytest.param(doc(claim(evidence={"basis": "user"})), "set by the host", id="host-field"),
    pytest.param(doc(claim(reason="because")), "not allowed", id="extra-field"),
    pytest.param(doc(claim(), note="x"), "not allowed", id="extra-top-field"),
    pytest.param(doc(without("kind")), "missing", id="no-kind"),
    pytest.param(doc(without("content")), "missing", id="no-content"),
    pytest.param({}, "missing", id="no-claims"),
    pytest.param(doc(claim(kind="todo")), "kind must be", id="unknown-kind"),
    pytest.param(doc(claim(replaces="not-an-id")), "not a claim id", id="bad-replaces"),
    pytest.param(doc(claim(replaces=TARGET.upper())), "not a claim id", id="upper-replaces"),
    pytest.param(doc(claim(content=42)), "not a string", id="content-number"),
    pytest.param(doc(claim(searchTerms="alias")), "not a list", id="terms-string"),
    pytest.param(doc(claim(searchTerms=[7])), "not a string", id="term-number"),
    pytest.param({"claims": {"kind": "fact"}}, "not a list", id="claims-object"),
    pytest.param(doc("a claim"), "not an object", id="claim-string"),
]


@pytest.mark.parametrize(("document", "said"), BROKEN)
def test_what_the_validator_refuses_the_schema_refuses(document: dict[str, Any], said: str) -> None:
    with pytest.raises(InvalidModelOutput) as info:
        parse_model_output(json.dumps(document, ensure_ascii=False))
    assert said in str(info.value)
    assert not VALIDATOR.is_valid(document)


def test_answers_within_the_limits_pass_both() -> None:
    document = doc(
        claim(),
        claim(kind="project_state", content="x" * CONTENT_MAX_CHARS, replaces=TARGET),
        claim(searchTerms=["端口", "x" * SCHEMA_SEARCH_TERM_MAX_CHARS] + ["😀" * SCHEMA_SEARCH_TERM_MAX_CHARS] * 6),
        *[claim(content=f"claim number {i}") for i in range(CLAIMS_MAX - 3)],
    )
    assert VALIDATOR.is_valid(document)
    assert len(parse_model_output(json.dumps(document, ensure_ascii=False)).claims) == CLAIMS_MAX


# Text a decoder may write: any printable character, astral ones included. (Control
# characters are left out: the schema cannot forbid them, the validator strips them.)
_TEXT = st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp"))


def _strings(low: int, high: int) -> st.SearchStrategy[str]:
    # Not blank once trimmed, as a model's text is.
    return st.text(_TEXT, min_size=low, max_size=high).filter(lambda s: len(s.strip()) >= low)


_claims = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(KINDS),
        "content": _strings(CONTENT_MIN_CHARS, CONTENT_MAX_CHARS),
        "replaces": st.none() | st.just(TARGET),
        "searchTerms": st.none()
        | st.lists(_strings(SEARCH_TERM_MIN_CHARS, SCHEMA_SEARCH_TERM_MAX_CHARS), max_size=SEARCH_TERMS_MAX),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_claims, max_size=CLAIMS_MAX))
def test_what_the_schema_accepts_the_validator_accepts(claims: list[dict[str, Any]]) -> None:
    document = {"claims": claims}
    assert VALIDATOR.is_valid(document)
    parse_model_output(json.dumps(document, ensure_ascii=False))
