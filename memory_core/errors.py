"""Every error memevo raises on purpose. Each message says what to do next.

The CLI turns a :class:`MemevoError` into one line on stderr and its ``exit_code``.
"""

from __future__ import annotations


class MemevoError(Exception):
    """Base class: a user-facing failure with an exit code."""

    exit_code = 1


class ConfigError(MemevoError):
    """A setting has an invalid value."""

    exit_code = 2


class UsageError(MemevoError):
    """The command was called with input it cannot accept."""

    exit_code = 2


class SchemaVersionError(MemevoError):
    """The database was written by a build this one does not understand."""

    exit_code = 1


class StoreError(MemevoError):
    """The database could not be opened or written."""


class BudgetSpent(MemevoError):
    """Today's model budget is used up, so no attempt can start before it resets."""


class CorruptRecordError(MemevoError):
    """A stored row does not validate. Carries the table and row id."""

    def __init__(self, table: str, row_id: str, detail: str) -> None:
        self.table = table
        self.row_id = row_id
        self.detail = detail
        super().__init__(
            f"corrupt {table} row {row_id}: {detail} (run `memevo status` for the full list; other rows are unaffected)"
        )


class NotFoundError(MemevoError):
    """An id names nothing stored."""


class ConflictError(MemevoError):
    """The operation no longer applies to the current records (e.g. undo after a later change)."""


class ImportFormatError(MemevoError):
    """An import file has a bad line; nothing was written."""

    exit_code = 2


class WriteRejected(MemevoError):
    """A model batch broke a write guard (unknown or cross-origin target, …); nothing written."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"model output rejected by the store: {reason}")


class StaleOutput(MemevoError):
    """The origin changed (a manual action) while the model was working; nothing written."""


class LeaseLost(MemevoError):
    """The job's lease expired or moved to another worker; a late result changes nothing."""


class InvalidModelOutput(MemevoError):
    """The model's answer broke the output contract; the whole batch was rejected.

    ``reason`` is a short description built only from fixed text, field names and
    counts, never from the model's own words, so it is safe to log and show.
    """

    REASON_MAX_CHARS = 200

    def __init__(self, reason: str) -> None:
        self.reason = reason[: self.REASON_MAX_CHARS]
        super().__init__(
            f"model output rejected: {self.reason} "
            "(nothing was written; the source is retried later, see `memevo status`)"
        )


def short_error(exc: Exception) -> str:
    """A one-line, bounded description of why a stored row did not validate (for any
    pydantic ``ValidationError`` or plain exception, without importing pydantic)."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":
        first = errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        return f"{where}: {first['msg']}"[:200]
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
