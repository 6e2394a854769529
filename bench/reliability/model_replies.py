"""Malformed model replies: every shape is rejected, nothing is written, a retry is scheduled.

    python -m bench.reliability.model_replies [--only NAME,...] [--database-url postgresql://…]

The shapes share one fresh state dir and store (on PostgreSQL a fresh schema); each gets a
user statement of its own, captured, and a fresh loopback model server answering with that
shape (twice, in case the client retries within the attempt); one attempt runs in this
process. Rejected means: the attempt failed with an allowlisted error code, the source is
pending again with one failure and a due time in the future, no claim and no apply event
exist, and no byte of the reply reached the store (``memory.db`` and its WAL; every row of
every table of the schema), where the statement itself is found.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import Place, new_place, print_figures, stored_bytes

TARGET = "a" * 24
MARKER = "QX7-MARKER"  # in every reply's text, never allowed into memory.db


def claim(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"kind": "fact", "content": f"The staging database listens on port 5433 {MARKER}"}
    base.update(fields)
    return base


def answer(*claims: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"claims": list(claims), **extra})


def completion_body(message: dict[str, Any] | None, *, finish: str | None = "stop", choices: bool = True) -> str:
    body: dict[str, Any] = {"id": "x", "object": "chat.completion", "model": "fake"}
    if choices:
        choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
        if message is not None:
            choice["message"] = message
        body["choices"] = [choice]
    return json.dumps(body)


# name -> (Reply fields, attempt seconds)
SHAPES: dict[str, dict[str, Any]] = {
    # the answer breaks the contract
    "prose": {"content": f"I could not find anything to remember. {MARKER}"},
    "empty-content": {"content": ""},
    "whitespace-content": {"content": "   \n\t "},
    "truncated-json": {"content": '{"claims": [{"kind": "fact", "content": "' + MARKER},
    "json-array": {"content": json.dumps([claim()])},
    "json-string": {"content": json.dumps(MARKER)},
    "json-number": {"content": "42"},
    "no-claims-field": {"content": json.dumps({"facts": [claim()]})},
    "claims-null": {"content": json.dumps({"claims": None})},
    "claims-object": {"content": json.dumps({"claims": claim()})},
    "claims-of-numbers": {"content": json.dumps({"claims": [1, 2, 3]})},
    "claim-without-kind": {"content": answer({"content": f"no kind here {MARKER}"})},
    "claim-without-content": {"content": answer({"kind": "fact"})},
    "unknown-kind": {"content": answer(claim(kind="fcat"))},
    "kind-null": {"content": answer(claim(kind=None))},
    "content-number": {"content": answer(claim(content=5433))},
    "content-list": {"content": answer(claim(content=[MARKER]))},
    "content-3-chars": {"content": answer(claim(content="abc"))},
    "content-blank": {"content": answer(claim(content="      "))},
    "content-nuls": {"content": answer(claim(content="\u0000\u0000\u0000\u0000\u0000"))},
    "content-5000-chars": {"content": answer(claim(content=MARKER * 500))},
    "17-claims": {"content": answer(*[claim(content=f"claim number {i} {MARKER}") for i in range(17)])},
    "extra-field": {"content": answer(claim(confidence=0.9))},
    "extra-top-level": {"content": answer(claim(), notes=MARKER)},
    "host-field-status": {"content": answer(claim(status="active"))},
    "host-field-id": {"content": answer(claim(id=TARGET))},
    "host-field-evidence": {"content": answer(claim(evidence={"basis": "user_statement"}))},
    "search-terms-string": {"content": answer(claim(searchTerms="staging"))},
    "search-terms-numbers": {"content": answer(claim(searchTerms=[1, 2]))},
    "9-search-terms": {"content": answer(claim(searchTerms=[f"term{i}" for i in range(9)]))},
    "65-char-search-term": {"content": answer(claim(searchTerms=["x" * 65]))},
    "replaces-not-an-id": {"content": answer(claim(replaces="the old one"))},
    "replaces-uppercase": {"content": answer(claim(replaces="A" * 24))},
    "replaces-25-hex": {"content": answer(claim(replaces="a" * 25))},
    "replaces-unknown-claim": {"content": answer(claim(replaces=TARGET))},
    "duplicate-key": {"content": '{"claims": [], "claims": [' + json.dumps(claim()) + "]}"},
    "nan": {"content": '{"claims": [{"kind": "fact", "content": NaN}]}'},
    "deep-nesting": {"content": '{"claims": ' + "[" * 5000},
    "lone-surrogate": {"content": '{"claims": [{"kind": "fact", "content": "bad \\ud800 surrogate ' + MARKER + '"}]}'},
    "answer-over-64kB": {"content": answer(claim(), padding=MARKER * 7000)},
    # the completion around the answer is wrong
    "finish-length": {"content": answer(claim()), "finish_reason": "length"},
    "finish-content-filter": {"content": answer(claim()), "finish_reason": "content_filter"},
    "tool-call-instead": {"tool_calls": True},
    "message-content-null": {"body": completion_body({"role": "assistant", "content": None})},
    "no-message": {"body": completion_body(None)},
    "no-choices": {"body": completion_body(None, choices=False)},
    "choices-empty": {"body": json.dumps({"id": "x", "choices": []})},
    "body-html": {"body": f"<html><body>Bad gateway {MARKER}</body></html>"},
    "body-empty": {"body": ""},
    "body-truncated-json": {"body": '{"choices": [{"message": {"content": "' + MARKER},
    "body-json-array": {"body": "[]"},
    # transport failures
    "http-500": {"status": 500},
    "http-502": {"status": 502},
    "http-503": {"status": 503},
    "http-504": {"status": 504},
    "http-429-retry-after": {"status": 429, "headers": {"Retry-After": "120"}},
    "http-401": {"status": 401},
    "http-403": {"status": 403},
    "http-404": {"status": 404},
    "http-422": {"status": 422},
    "hang": {"hang": True, "attempt_seconds": 1},
    "trickle": {"trickle": 0.2, "attempt_seconds": 1},
}
TRANSPORT = {"hang", "trickle"} | {name for name in SHAPES if name.startswith(("http-", "body-"))}
ALLOWED_CODES = {"provider", "unavailable", "output_limit", "invalid_output", "write_rejected", "timeout"}


def _tagged(value: Any, tag: str) -> Any:
    """``value`` with every :data:`MARKER` made this shape's own (``MARKER`` + ``tag``)."""
    if isinstance(value, str):
        return value.replace(MARKER, MARKER + tag)
    if isinstance(value, dict):
        return {k: _tagged(v, tag) for k, v in value.items()}
    if isinstance(value, list):
        return [_tagged(v, tag) for v in value]
    return value


def attempt(name: str, spec: dict[str, Any], place: Place, tag: str = "") -> dict[str, Any]:
    """One capture and one attempt against a fresh server answering with the shape (its
    markers tagged with ``tag``); what is stored is searched afterwards (:func:`run`)."""
    from memory_core import clock
    from memory_core.capture.intake import capture_source
    from memory_core.config import load_settings
    from memory_core.store.engines.database import Store
    from tests.support.fake_model import FakeModelServer, Reply
    from workers.consolidate import consolidate_source

    fields = {k: _tagged(v, tag) for k, v in spec.items() if k != "attempt_seconds"}
    statement = f"the staging database of {name} listens on port 5433"
    with (
        # A server answering every request so: an attempt that steps down through the JSON
        # modes on a refusal (400, 422) gets the same answer in each.
        FakeModelServer([Reply(**fields)] * 6) as server,
        place.active(
            MEMEVO_MODEL_URL=server.base_url,
            MEMEVO_MODEL="fake",
            MEMEVO_ATTEMPT_SECONDS=str(spec.get("attempt_seconds", 10)),
            MEMEVO_FIRST_CALL_SECONDS=str(spec.get("attempt_seconds", 10)),  # every call on the same deadline
        ),
    ):
        with Store.open(place.home) as store, store.transaction() as conn:
            sid = capture_source(
                conn,
                source_type="user_statement",
                origin="/work/app",
                now=clock.now(),
                text=f"remember that {statement}",
            ).source_id
        before = clock.now()
        started = time.monotonic()
        outcome = consolidate_source(load_settings(), sid)
        seconds = time.monotonic() - started
        requests = server.request_count
    row = place.query(
        "SELECT state, consecutive_failures, last_error_code, next_due_at FROM sources WHERE id=?", (sid,)
    )[0]
    claims = place.query("SELECT COUNT(*) FROM memories")[0][0]
    applies = place.query("SELECT COUNT(*) FROM events WHERE operation = 'consolidate'")[0][0]
    return {
        "name": name,
        "status": str(outcome.status),
        "code": outcome.error_code,
        "reason": getattr(outcome, "error_reason", None),
        "state": row[0],
        "failures": row[1],
        "stored_code": row[2],
        "retry_in_s": None if row[3] is None else round(row[3] - before),
        "claims": claims,
        "applies": applies,
        "marker": MARKER + tag,
        "statement": statement,
        "requests": requests,
        "seconds": round(seconds, 2),
    }


def rejected(result: dict[str, Any]) -> bool:
    return (
        result["status"] == "failed"
        and result["code"] in ALLOWED_CODES
        and result["stored_code"] == result["code"]
        and result["state"] == "pending"
        and result["failures"] == 1
        and (result["retry_in_s"] or 0) >= 59
        and result["claims"] == 0
        and result["applies"] == 0
        and not result["marker_stored"]
        and result["statement_found"]
    )


def run(
    only: list[str] | None = None, *, database_url: str | None = None, workdir: Path | None = None
) -> dict[str, Any]:
    """Every shape (or ``only`` these); raises AssertionError listing those not rejected."""
    names = only or list(SHAPES)
    results = []
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="memevo-replies-", dir=workdir) as tmp,
        new_place(Path(tmp) / "home", database_url) as place,
    ):
        for n, name in enumerate(names):
            results.append(attempt(name, SHAPES[name], place, f"{n:02d}"))
        # Every shape's own marker is searched for in everything stored, once at the end.
        stored = b"".join(stored_bytes(place).values())
    for r in results:
        r["marker_stored"] = r.pop("marker").encode() in stored
        r["statement_found"] = r.pop("statement").encode() in stored  # the search finds what is stored
    wrong = [r for r in results if not rejected(r)]
    by_code: dict[str, int] = {}
    for r in results:
        by_code[str(r["code"])] = by_code.get(str(r["code"]), 0) + 1
    figures = {
        "backend": "postgresql" if database_url else "sqlite",
        "shapes": len(results),
        "transport_shapes": sum(1 for r in results if r["name"] in TRANSPORT),
        "rejected": len(results) - len(wrong),
        "written": sum(r["claims"] + r["applies"] for r in results),
        "marker_stored_anywhere": MARKER.encode() in stored,
        "retries_scheduled": sum(1 for r in results if r["state"] == "pending" and (r["retry_in_s"] or 0) >= 59),
        "by_code": by_code,
        "seconds": round(time.monotonic() - started, 1),
    }
    assert not wrong and not figures["marker_stored_anywhere"], json.dumps(wrong, indent=1)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated shape names")
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in fresh schemas of this database")
    args = parser.parse_args()
    figures = run([n for n in args.only.split(",") if n] or None, database_url=args.database_url)
    print_figures("model_replies", figures)


if __name__ == "__main__":
    main()
