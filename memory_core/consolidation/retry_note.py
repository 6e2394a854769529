"""What the next attempt tells the model about its previous, refused answer.

At temperature 0 a model given the same prompt writes the same answer: a retry of a refused
answer would fail the same way every time. So an attempt after a refused answer adds one
line saying what was wrong with it, built from the stored reason code alone (never from
the answer, which is not kept): the prompt changes, and says what to change.
"""

from __future__ import annotations

from memory_core.consolidation.contract import (
    CLAIMS_MAX,
    CONTENT_MAX_CHARS,
    CONTENT_MIN_CHARS,
    OUTPUT_MAX_BYTES,
    SCHEMA_SEARCH_TERM_MAX_CHARS,
    SEARCH_TERM_MIN_CHARS,
    SEARCH_TERMS_MAX,
)
from memory_core.records import HOST_FIELDS, ErrorCode, Reason, Source

_FIELDS = '"kind", "content", "replaces" and "searchTerms"'
_TERMS = (
    f"at most {SEARCH_TERMS_MAX} searchTerms per claim, "
    f"each {SEARCH_TERM_MIN_CHARS} to {SCHEMA_SEARCH_TERM_MAX_CHARS} characters"
)

# Per reason code: what was wrong, then what to do. Fixed text only.
_NOTES: dict[str, str] = {
    Reason.NOT_JSON: "it was not valid JSON. Reply with the JSON object alone",
    Reason.EMPTY_ANSWER: 'it was empty. Reply with a JSON object, {"claims": []} when nothing is worth keeping',
    Reason.NOT_AN_OBJECT: 'it was not a JSON object. Reply with one object: {"claims": [...]}',
    Reason.ANSWER_TOO_LARGE: f"it was larger than {OUTPUT_MAX_BYTES} bytes. Propose fewer, shorter claims",
    Reason.DUPLICATE_KEY: "an object in it repeated a key. Give each field once",
    Reason.MISSING_FIELD: 'a required field was missing. Each claim needs "kind" and "content"',
    Reason.EXTRA_FIELD: f"it carried a field the answer must not have. A claim has only {_FIELDS}; "
    "never copy other fields of a candidate (evidence, feedback, updatedAt, id)",
    Reason.WRONG_TYPE: 'a field had the wrong type: "kind", "content" and "replaces" are strings, '
    '"searchTerms" a list of strings, "claims" a list of objects',
    Reason.UNKNOWN_KIND: 'a claim\'s "kind" was not "fact", "preference", "decision" or "project_state"',
    Reason.TOO_MANY_CLAIMS: f"it had more than {CLAIMS_MAX} claims. Keep only the most lasting ones",
    Reason.CONTENT_TOO_SHORT: f'a claim\'s "content" was shorter than {CONTENT_MIN_CHARS} characters',
    Reason.CONTENT_TOO_LONG: f'a claim\'s "content" was longer than {CONTENT_MAX_CHARS} characters. '
    "Split it or say it shorter",
    Reason.INVALID_CHARACTER: "it contained an invalid character. Use plain text",
    Reason.BAD_REPLACEMENT_ID: '"replaces" was not a candidate id. Copy one id exactly, or leave "replaces" null',
    Reason.TOO_MANY_SEARCH_TERMS: f"a claim had too many searchTerms. Give {_TERMS}",
    Reason.SEARCH_TERM_LENGTH: f"a search term was too short or too long. Give {_TERMS}",
    Reason.SEARCH_TERMS_TOO_LARGE: f"a claim's searchTerms were too long together. Give {_TERMS}",
    Reason.CUT_OFF: "it was cut off at the output limit. Propose fewer, shorter claims",
    Reason.WRONG_FINISH_REASON: "it did not end normally. Reply with the JSON object alone",
    Reason.TOOL_CALLS: "it called a tool. Reply with text only: the JSON object",
    Reason.NO_TEXT: "it held no text. Reply with the JSON object as text",
    Reason.UNKNOWN_REPLACEMENT_ID: '"replaces" named an id that is not one of the candidates shown. '
    'Copy a candidate\'s id exactly, or leave "replaces" null',
    Reason.OTHER_ORIGIN_TARGET: '"replaces" named a claim of another project. Leave "replaces" null',
    Reason.DUPLICATE_TARGET: 'two claims replaced the same candidate. Give each candidate at most one "replaces"',
    Reason.REPLACEMENT_CYCLE: "one claim restated a candidate unchanged while another replaced that candidate. "
    "Either restate a candidate or replace it, never both",
    Reason.PROGRESS_RULE: 'a progress source may only propose "project_state" claims, each replacing one nominated id',
    Reason.PINNED_TARGET: '"replaces" named a pinned claim, which only the user changes. Leave it out',
    Reason.STALE_TARGET: '"replaces" named a candidate that has changed since. Leave it out',
    Reason.KIND_CHANGE: 'a claim replaced a candidate of another kind. "replaces" keeps the candidate\'s kind',
    Reason.TARGET_NOT_ACTIVE: '"replaces" named a claim that is no longer active. Leave it out',
}

# Failures of the answer itself; a timeout or an unreachable server says nothing about it.
_ANSWER_FAILURES = frozenset({ErrorCode.INVALID_OUTPUT, ErrorCode.OUTPUT_LIMIT, ErrorCode.WRITE_REJECTED})


def retry_note(source: Source) -> str | None:
    """The line telling the model what was wrong with its last answer for ``source``, or
    ``None`` when the source's last attempt did not fail on its answer."""
    if source.consecutive_failures < 1 or source.last_error_code not in _ANSWER_FAILURES:
        return None
    code, _, field = (source.last_error_reason or "").partition(":")
    note = _NOTES.get(code)
    if note is None:
        return "Your previous answer for this source was refused. Keep exactly to the rules above."
    if code == Reason.EXTRA_FIELD and field in HOST_FIELDS:
        note = f'it carried "{field}", which only the memory system sets. A claim has only {_FIELDS}'
    elif code in (Reason.EXTRA_FIELD, Reason.MISSING_FIELD, Reason.WRONG_TYPE) and field not in ("", "other"):
        note += f' (the field "{field}")'
    return f"Your previous answer for this source was refused: {note}."
