"""The model's answer: a strict schema and the one parser that accepts it.

The model may propose only four things per claim: a kind, the text, an optional candidate
it replaces and optional search aliases. Provenance, confidence and status are assigned by
the host, so any other field is a defect. One defect rejects the whole batch: a partly
accepted answer would hide a broken reply behind a plausible subset.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memory_core.errors import InvalidModelOutput
from memory_core.ids import ID_PATTERN, is_memory_id
from memory_core.privacy.redaction import redact_secrets
from memory_core.records import CONTRACT_FIELDS, HOST_FIELDS, KINDS, Kind, Reason, reason_code

OUTPUT_MAX_BYTES = 64_000
CLAIMS_MAX = 16
CONTENT_MIN_CHARS = 4
CONTENT_MAX_CHARS = 480
SEARCH_TERMS_MAX = 8
SEARCH_TERM_MIN_CHARS = 2
SEARCH_TERM_MAX_CHARS = 64
SEARCH_TERMS_MAX_BYTES = 1_024

# Control and invisible formatting characters; tab and newline survive in content.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\ufeff]")
# Lone surrogates can come out of JSON escapes but cannot be stored as UTF-8.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# One outer fence, optionally labelled json; anything inside it is the answer.
_FENCE = re.compile(r"\A```[ \t]*(?:json)?[ \t]*\n(?P<body>.*?)\n?[ \t]*```\Z", re.DOTALL | re.IGNORECASE)


class RejectedAnswer(InvalidModelOutput):
    """An answer that broke the contract, with its allowlisted reason code
    (:func:`memory_core.records.reason_code`) beside the fixed-text ``reason``."""

    def __init__(self, code: Reason, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason_code = reason_code(code, field)


class _Defect(ValueError):
    """A validator's refusal: fixed text plus the reason code it stands for."""

    def __init__(self, code: Reason, message: str) -> None:
        super().__init__(message)
        self.code = code


def _visible(text: str) -> str:
    if _SURROGATE.search(text):
        raise _Defect(Reason.INVALID_CHARACTER, "contains an invalid character")
    return _INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def clean_search_term(term: str) -> str:
    """One alias as it is stored: no control characters, whitespace collapsed and trimmed."""
    return " ".join(_visible(term).split())


def search_terms_bytes(terms: list[str]) -> int:
    """Size of the aliases' compact JSON encoding, the form the limit is measured in."""
    return len(json.dumps(terms, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class Proposal(BaseModel):
    """One claim as the model proposes it, before the host adds provenance."""

    # strict: a number is not a string and a string is not a list, even if coercible.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: Kind
    content: str
    replaces: str | None = None
    search_terms: list[str] = Field(default_factory=list, alias="searchTerms", max_length=SEARCH_TERMS_MAX)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        value = _visible(value).strip()
        if len(value) < CONTENT_MIN_CHARS:
            raise _Defect(Reason.CONTENT_TOO_SHORT, f"too short (at least {CONTENT_MIN_CHARS} characters)")
        if len(value) > CONTENT_MAX_CHARS:
            raise _Defect(Reason.CONTENT_TOO_LONG, f"too long (at most {CONTENT_MAX_CHARS} characters)")
        return value

    @field_validator("replaces")
    @classmethod
    def _replaces(cls, value: str | None) -> str | None:
        if value is not None and not is_memory_id(value):
            raise _Defect(Reason.BAD_REPLACEMENT_ID, "not a claim id (24 lowercase hex characters)")
        return value

    @field_validator("search_terms", mode="before")
    @classmethod
    def _null_terms(cls, value: Any) -> Any:
        # An explicit null means "no aliases", the same as leaving the field out.
        return [] if value is None else value

    @field_validator("search_terms")
    @classmethod
    def _search_terms(cls, value: list[str]) -> list[str]:
        cleaned: list[str] = []
        seen: set[str] = set()
        for raw in value:
            term = clean_search_term(raw)
            if not SEARCH_TERM_MIN_CHARS <= len(term) <= SEARCH_TERM_MAX_CHARS:
                raise _Defect(
                    Reason.SEARCH_TERM_LENGTH,
                    f"each term needs {SEARCH_TERM_MIN_CHARS}-{SEARCH_TERM_MAX_CHARS} characters",
                )
            # Repeats carry nothing; dropping them is not a defect in the answer. Nor is
            # dropping a term that holds a secret: it would be indexed and shown.
            if term.casefold() not in seen and redact_secrets(term) == term:
                seen.add(term.casefold())
                cleaned.append(term)
        if search_terms_bytes(cleaned) > SEARCH_TERMS_MAX_BYTES:
            raise _Defect(Reason.SEARCH_TERMS_TOO_LARGE, f"together larger than {SEARCH_TERMS_MAX_BYTES} bytes of JSON")
        return cleaned


class ModelBatch(BaseModel):
    """The whole answer for one source: zero or more proposed claims."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    claims: list[Proposal] = Field(max_length=CLAIMS_MAX)


# Fixed descriptions per pydantic error type, so a reason never echoes model text.
_DESCRIPTIONS = {
    "extra_forbidden": "field not allowed",
    "missing": "required field missing",
    "string_type": "not a string",
    "list_type": "not a list",
    "model_type": "not an object",
    "dict_type": "not an object",
    "literal_error": "kind must be fact, preference, decision or project_state",
}


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = part if part in CONTRACT_FIELDS | HOST_FIELDS else "<unknown field>"
            out += f".{name}" if out else name
    return out or "answer"


_TYPE_ERRORS = {"string_type", "list_type", "model_type", "dict_type", "model_attributes_type"}


def _field(loc: tuple[int | str, ...]) -> str:
    """The innermost field name of an error location (``claims`` for the list itself)."""
    names = [part for part in loc if isinstance(part, str)]
    return names[-1] if names else "claims"


def _rejection(error: Any) -> tuple[Reason, str | None, str]:
    """(reason code, field it concerns, fixed-text description) for one pydantic error."""
    kind = str(error.get("type", "invalid"))
    loc = tuple(error.get("loc", ()))
    field: str | None = None
    if kind == "value_error":
        # Raised by our own validators above, whose messages are fixed text.
        defect = error.get("ctx", {}).get("error")
        code = defect.code if isinstance(defect, _Defect) else Reason.INVALID_VALUE
        detail = str(defect) if isinstance(defect, _Defect) else "invalid value"
    elif kind == "too_long" and loc == ("claims",):
        code, detail = Reason.TOO_MANY_CLAIMS, f"too many claims (at most {CLAIMS_MAX})"
    elif kind == "too_long":
        code, detail = Reason.TOO_MANY_SEARCH_TERMS, f"too many search terms (at most {SEARCH_TERMS_MAX})"
    elif kind == "extra_forbidden":
        code, field = Reason.EXTRA_FIELD, _field(loc)
        detail = "set by the host, never by the model" if loc and loc[-1] in HOST_FIELDS else "field not allowed"
    elif kind == "missing":
        code, field, detail = Reason.MISSING_FIELD, _field(loc), _DESCRIPTIONS[kind]
    elif kind == "literal_error":
        code, detail = Reason.UNKNOWN_KIND, _DESCRIPTIONS[kind]
    elif kind in _TYPE_ERRORS:
        code, field, detail = Reason.WRONG_TYPE, _field(loc), _DESCRIPTIONS.get(kind, "wrong type")
    else:
        code, detail = Reason.INVALID_VALUE, _DESCRIPTIONS.get(kind, kind)
    return code, field, f"{_path(loc)}: {detail}"


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # With duplicate keys the last one would silently win; a second "content" is a defect.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RejectedAnswer(Reason.DUPLICATE_KEY, "duplicate key in a JSON object")
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise RejectedAnswer(Reason.NOT_JSON, "NaN or Infinity is not JSON")


def _unfence(text: str) -> str:
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group("body") if match else stripped


def parse_model_output(text: str) -> ModelBatch:
    """Validate the model's reply text and return the batch, or raise :class:`InvalidModelOutput`.

    Accepts one JSON object, optionally wrapped in a single outer Markdown code fence.
    """
    if len(text.encode("utf-8", errors="surrogatepass")) > OUTPUT_MAX_BYTES:
        raise RejectedAnswer(Reason.ANSWER_TOO_LARGE, f"answer larger than {OUTPUT_MAX_BYTES} bytes")
    body = _unfence(text)
    if not body:
        raise RejectedAnswer(Reason.EMPTY_ANSWER, "empty answer")
    try:
        data = json.loads(body, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise RejectedAnswer(Reason.NOT_JSON, f"not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError):
        raise RejectedAnswer(Reason.NOT_JSON, "not valid JSON") from None
    if not isinstance(data, dict):
        raise RejectedAnswer(Reason.NOT_AN_OBJECT, "not a JSON object")
    try:
        return ModelBatch.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        code, field, description = _rejection(errors[0])
        raise RejectedAnswer(code, description + more, field) from None


# The longest alias the schema allows: short enough that SEARCH_TERMS_MAX of them, each
# character taking at most 4 bytes, always fit SEARCH_TERMS_MAX_BYTES of JSON (quotes,
# commas and brackets counted), a limit JSON schema cannot state by itself.
SCHEMA_SEARCH_TERM_MAX_CHARS = min(
    SEARCH_TERM_MAX_CHARS,
    (SEARCH_TERMS_MAX_BYTES - 2 - (SEARCH_TERMS_MAX - 1) - 2 * SEARCH_TERMS_MAX) // (4 * SEARCH_TERMS_MAX),
)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    # anyOf rather than a list of types: grammar converters (llama.cpp) drop a type list's
    # limits, and strict structured-output servers accept both.
    return {"anyOf": [schema, {"type": "null"}]}


def _claim_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "kind": {"type": "string", "enum": list(KINDS)},
        "content": {"type": "string", "minLength": CONTENT_MIN_CHARS, "maxLength": CONTENT_MAX_CHARS},
        "replaces": _nullable({"type": "string", "pattern": ID_PATTERN}),
        "searchTerms": _nullable(
            {
                "type": "array",
                "items": {
                    "type": "string",
                    "minLength": SEARCH_TERM_MIN_CHARS,
                    "maxLength": SCHEMA_SEARCH_TERM_MAX_CHARS,
                },
                "maxItems": SEARCH_TERMS_MAX,
            }
        ),
    }
    # The properties are the validator's own fields (by the names the model writes), so a
    # field added to or removed from Proposal cannot leave the schema behind.
    names = [field.alias or name for name, field in Proposal.model_fields.items()]
    if sorted(names) != sorted(properties):
        raise AssertionError(f"the answer schema's fields {sorted(properties)} differ from Proposal's {sorted(names)}")
    return {
        "type": "object",
        "properties": {name: properties[name] for name in names},
        "required": names,
        "additionalProperties": False,
    }


def response_schema() -> dict[str, Any]:
    """The contract as a JSON schema for constrained decoding (``response_format`` and its
    local spellings, workers/json_modes.py).

    It carries every limit :func:`parse_model_output` checks that JSON schema can state: the
    kinds, the number of claims and aliases, the lengths of content and aliases (aliases a
    little shorter, so their byte limit always holds), the id form of ``replaces``, and no
    other field. Every field is required, the optional ones nullable (which
    :class:`Proposal` reads as absent), within the subset strict servers accept. What it
    cannot state (no control characters, content not blank once trimmed) is still checked
    after the answer arrives; a document the schema accepts passes those for any decoder
    that writes plain text.
    """
    return {
        "type": "object",
        "properties": {"claims": {"type": "array", "items": _claim_schema(), "maxItems": CLAIMS_MAX}},
        "required": ["claims"],
        "additionalProperties": False,
    }
