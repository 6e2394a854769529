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
from memory_core.store.columns import SOURCE_JOB_FIELDS as SOURCE_JOB_FIELDS

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
) -> Memory:
    """A new active claim with host-assigned provenance (its id derives from origin, kind and content)."""
    text = normalize_content(content)
    return Memory(
        id=memory_id(origin, kind, text),
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
