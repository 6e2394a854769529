"""Stored records as pydantic models, validated every time they are read.

Rows keep a few indexed columns beside a JSON body; the ``*_from_row`` readers in
:mod:`memory_core.store` check that the two agree. Every read builds new model instances, so callers never share nested
metadata with one another or with a cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memory_core.clock import MAX_TIMESTAMP
from memory_core.ids import ID_PATTERN, content_hash, memory_id, normalize_content
from memory_core.store.schema.columns import SOURCE_JOB_FIELDS as SOURCE_JOB_FIELDS

Kind = Literal["fact", "preference", "decision", "project_state"]
KINDS: tuple[str, ...] = ("fact", "preference", "decision", "project_state")

MemoryStatus = Literal["active", "superseded", "forgotten", "conflicted"]
MEMORY_STATUSES: tuple[str, ...] = ("active", "superseded", "forgotten", "conflicted")

Basis = Literal["summary", "user_statement", "tool_observation", "manual_correction"]
Method = Literal["local", "model", "manual"]
SourceType = Literal["summary", "user_statement", "progress"]


# A claim's times are shown and compared everywhere; NaN, infinities or far-off numbers
# (an import in milliseconds, say) would break every listing of it, so they are refused.
Timestamp = Annotated[float, Field(ge=0, le=MAX_TIMESTAMP, allow_inf_nan=False)]


class JobState(StrEnum):
    """Where a source's consolidation job stands."""

    PENDING = "pending"
    LEASED = "leased"
    PAUSED = "paused"
    DONE = "done"
    RETIRED = "retired"


class ErrorCode(StrEnum):
    """The only failure descriptions ever stored: never exception text or bodies."""

    PROVIDER = "provider"
    UNAVAILABLE = "unavailable"
    OUTPUT_LIMIT = "output_limit"
    INVALID_OUTPUT = "invalid_output"
    WRITE_REJECTED = "write_rejected"
    STALE_OUTPUT = "stale_output"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"


class Reason(StrEnum):
    """Why an attempt failed, beside its :class:`ErrorCode`: a fixed list, so a stored reason
    can never carry model text, a response body or a credential. A reason about one field of
    the answer is stored as ``code:field`` with the field named from :data:`REASON_FIELDS`."""

    # The answer broke the contract (invalid_output).
    NOT_JSON = "not_json"
    EMPTY_ANSWER = "empty_answer"
    NOT_AN_OBJECT = "not_an_object"
    ANSWER_TOO_LARGE = "answer_too_large"
    DUPLICATE_KEY = "duplicate_key"
    MISSING_FIELD = "missing_field"
    EXTRA_FIELD = "extra_field"
    WRONG_TYPE = "wrong_type"
    UNKNOWN_KIND = "unknown_kind"
    TOO_MANY_CLAIMS = "too_many_claims"
    CONTENT_TOO_SHORT = "content_too_short"
    CONTENT_TOO_LONG = "content_too_long"
    INVALID_CHARACTER = "invalid_character"
    BAD_REPLACEMENT_ID = "bad_replacement_id"
    TOO_MANY_SEARCH_TERMS = "too_many_search_terms"
    SEARCH_TERM_LENGTH = "search_term_length"
    SEARCH_TERMS_TOO_LARGE = "search_terms_too_large"
    INVALID_VALUE = "invalid_value"
    # How the answer ended (invalid_output, output_limit).
    WRONG_FINISH_REASON = "wrong_finish_reason"
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"
    NO_TEXT = "no_text"
    CUT_OFF = "cut_off"
    # A write guard refused the batch (write_rejected).
    UNKNOWN_REPLACEMENT_ID = "unknown_replacement_id"
    OTHER_ORIGIN_TARGET = "other_origin_target"
    DUPLICATE_TARGET = "duplicate_target"
    REPLACEMENT_CYCLE = "replacement_cycle"
    PROGRESS_RULE = "progress_rule"
    PINNED_TARGET = "pinned_target"
    STALE_TARGET = "stale_target"
    KIND_CHANGE = "kind_change"
    TARGET_NOT_ACTIVE = "target_not_active"
    # The origin changed meanwhile (stale_output).
    ORIGIN_CHANGED = "origin_changed"
    # The request (unavailable, provider, timeout).
    CONNECT_FAILED = "connect_failed"
    BAD_URL = "bad_url"
    HTTP_3XX = "http_3xx"
    HTTP_400 = "http_400"
    HTTP_401 = "http_401"
    HTTP_403 = "http_403"
    HTTP_404 = "http_404"
    HTTP_408 = "http_408"
    HTTP_413 = "http_413"
    HTTP_422 = "http_422"
    HTTP_429 = "http_429"
    HTTP_4XX = "http_4xx"
    HTTP_500 = "http_500"
    HTTP_502 = "http_502"
    HTTP_503 = "http_503"
    HTTP_504 = "http_504"
    HTTP_5XX = "http_5xx"
    RESPONSE_NOT_JSON = "response_not_json"
    RESPONSE_TOO_LARGE = "response_too_large"
    NO_CHOICES = "no_choices"
    DEADLINE = "deadline"
    # An agent's CLI as the model (unavailable, provider, invalid_output).
    CLI_MISSING = "cli_missing"
    CLI_EXIT = "cli_exit"
    CLI_ERROR = "cli_error"
    NOT_LOGGED_IN = "not_logged_in"
    NO_MODEL_REPORTED = "no_model_reported"
    # The worker (interrupted).
    LEASE_EXPIRED = "lease_expired"
    INTERNAL_ERROR = "internal_error"


# The fields of the model's answer, and the fields the host owns (a model naming one is
# trying to set what only the host sets).
CONTRACT_FIELDS: frozenset[str] = frozenset({"claims", "kind", "content", "replaces", "searchTerms"})
HOST_FIELDS: frozenset[str] = frozenset(
    {
        "id",
        "evidence",
        "confidence",
        "verification",
        "utility",
        "accuracy",
        "feedback",
        "status",
        "origin",
        "pinned",
        "source_id",
        "sourceId",
        "model_id",
        "revision",
    }
)
# Field names a reason may carry: the contract's own, the host's, and the ones models are
# known to add on their own. Any other name is stored as ``other``.
REASON_FIELDS: frozenset[str] = (
    CONTRACT_FIELDS
    | HOST_FIELDS
    | frozenset(
        {
            "reason",
            "reasoning",
            "rationale",
            "explanation",
            "justification",
            "notes",
            "note",
            "comment",
            "source",
            "type",
            "category",
            "tags",
            "title",
            "summary",
            "text",
            "claim",
            "search_terms",
            "aliases",
            "keywords",
            "importance",
            "priority",
            "score",
            "updatedAt",
            "updated_at",
            "createdAt",
            "created_at",
            "date",
            "timestamp",
            "project",
            "scope",
            "subject",
            "answer",
            "result",
            "memories",
            "facts",
            "thought",
            "thoughts",
            "analysis",
            "other",
        }
    )
)
REASON_MAX_CHARS = 64


def reason_code(reason: Reason, field: str | None = None) -> str:
    """The stored form of a reason: ``code`` or ``code:field`` (unknown names become ``other``)."""
    if field is None:
        return reason.value
    return f"{reason.value}:{field if field in REASON_FIELDS else 'other'}"


def is_reason_code(value: object) -> bool:
    """True for a value :func:`reason_code` can produce (what a stored reason must be)."""
    if not isinstance(value, str) or len(value) > REASON_MAX_CHARS:
        return False
    code, sep, field = value.partition(":")
    return code in Reason._value2member_map_ and (not sep or field in REASON_FIELDS)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Evidence(_Strict):
    """Host-assigned provenance of a claim's current content."""

    basis: Basis
    method: Method
    source_id: str = Field(min_length=1, max_length=200)
    at: Timestamp


class VerdictSlot(_Strict):
    verdict: str
    source_id: str = Field(min_length=1, max_length=200)
    at: Timestamp


class Feedback(_Strict):
    """The last explicit utility and accuracy verdicts (independent slots)."""

    utility: VerdictSlot | None = None
    accuracy: VerdictSlot | None = None

    @model_validator(mode="after")
    def _verdicts(self) -> Feedback:
        if self.utility is not None and self.utility.verdict not in ("useful", "unhelpful"):
            raise ValueError("utility verdict must be useful or unhelpful")
        if self.accuracy is not None and self.accuracy.verdict not in ("accurate", "incorrect"):
            raise ValueError("accuracy verdict must be accurate or incorrect")
        return self


class Memory(_Strict):
    """One claim: what memevo believes, where it came from, and how it stands."""

    id: str = Field(pattern=ID_PATTERN)
    origin: str = Field(min_length=1, max_length=4096)
    kind: Kind
    status: MemoryStatus = "active"
    content: str = Field(min_length=1, max_length=4000)
    content_hash: str
    search_terms: list[str] = Field(default_factory=list, max_length=8)
    source_id: str | None = None
    model_id: str | None = None
    evidence: Evidence | None = None
    feedback: Feedback = Field(default_factory=Feedback)
    pinned: bool = False
    created_at: Timestamp
    updated_at: Timestamp
    confirmed_at: Timestamp | None = None
    revision: int = Field(default=1, ge=1)
    replaces: str | None = None
    replaced_by: str | None = None

    @model_validator(mode="after")
    def _hash_matches(self) -> Memory:
        if self.content_hash != content_hash(self.content):
            raise ValueError("content_hash does not match content")
        if self.evidence is not None and self.evidence.basis == "tool_observation":
            if self.kind != "project_state":
                raise ValueError("tool_observation evidence is only valid for project_state")
        return self

    @property
    def provisional(self) -> bool:
        """True for a claim whose current content a model inferred (evidence method
        ``model``): kept, but provisional until a person or a user's words back it."""
        return self.evidence is not None and self.evidence.method == "model"

    @property
    def clock_at(self) -> float:
        """The aging clock: the latest of its last change, its last confirmation and the
        date of its current evidence (a reaffirmation or fresh observation renews that)."""
        evidence_at = self.evidence.at if self.evidence is not None else 0.0
        return max(self.updated_at, self.confirmed_at or 0.0, evidence_at)


class Source(_Strict):
    """Captured evidence plus its consolidation job state (the source row is the job)."""

    id: str = Field(pattern=ID_PATTERN)
    origin: str = Field(min_length=1, max_length=4096)
    source_type: SourceType
    dedupe_key: str = Field(min_length=1)
    created_at: float
    text: str = Field(max_length=32_000)
    agent: str = "generic"
    session_id: str | None = None
    target_ids: list[str] = Field(default_factory=list, max_length=8)
    # job state (columns, not body)
    state: JobState = JobState.PENDING
    attempt: int = Field(default=0, ge=0)
    consecutive_failures: int = Field(default=0, ge=0)
    next_due_at: float = 0.0
    lease_owner: str | None = None
    lease_expires_at: float | None = None
    last_error_code: ErrorCode | None = None
    last_failure_at: float | None = None
    origin_generation: int = Field(default=0, ge=0)
    completed_at: float | None = None
    last_error_reason: str | None = None
    forced_at: float | None = None  # a forced attempt (`memevo evolve`) is queued or running

    @model_validator(mode="after")
    def _reason_allowlisted(self) -> Source:
        if self.last_error_reason is not None and not is_reason_code(self.last_error_reason):
            raise ValueError("last_error_reason is not an allowlisted reason code")
        return self


class Event(_Strict):
    """One change to claims, with the actual records before and after it."""

    id: int
    at: float
    actor: Literal["model", "local", "user", "system", "import"]
    operation: str = Field(min_length=1, max_length=64)
    reason: str | None = None
    source_id: str | None = None
    before: list[Memory] = Field(default_factory=list)
    after: list[Memory] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


def new_memory(
    *,
    origin: str,
    kind: str,
    content: str,
    source_id: str | None,
    evidence: Evidence | None,
    now: float,
    model_id: str | None = None,
    search_terms: Sequence[str] = (),
    replaces: str | None = None,
    claim_id: str | None = None,
) -> Memory:
    """A new active claim with host-assigned provenance. Its id derives from origin, kind and
    content unless the store's rule for its writer gave ``claim_id``
    (memory_core.store.tables.claim_ids: a team member's personal claim names its owner)."""
    text = normalize_content(content)
    return Memory(
        id=claim_id or memory_id(origin, kind, text),
        origin=origin,
        kind=kind,  # type: ignore[arg-type]
        content=text,
        content_hash=content_hash(text),
        search_terms=list(search_terms),
        source_id=source_id,
        model_id=model_id,
        evidence=evidence,
        created_at=now,
        updated_at=now,
        replaces=replaces,
    )
