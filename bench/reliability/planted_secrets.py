"""Planted secrets: no planted secret reaches any file of the state dir or the model.

    python -m bench.reliability.planted_secrets [--database-url postgresql://…]

Every positive of the redaction corpus (tests/hostile/secrets_corpus.py) is sent as a hook
call (:func:`harness.hook_call`; on PostgreSQL through `memevo serve`) the way agents send
it: inside compaction summaries, as an explicit user statement, as a prompt (generic and
Claude Code, which also stashes the prompt), and in the tool calls and final message of a
turn. The captured sources are then consolidated against
the loopback model, which echoes each source into a claim. Afterwards every file under the
state dir (memory.db and its WAL, queue.db, logs, stashes, diagnostics, the spool), on
PostgreSQL every value of every table of the store's schema and what `memevo serve` printed,
and every request body the model received are searched for every secret, raw and JSON-escaped.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import gateway, hook_call, new_place, print_figures, stored_bytes

GROUP = 5  # secrets per summary and per turn, so fewer sources carry all of them


def _payloads(texts: list[str]) -> list[tuple[str | None, dict[str, Any]]]:
    generic = {"schema": "memevo.hook/v1", "cwd": "/work/app"}
    out: list[tuple[str | None, dict[str, Any]]] = []
    for g in range(0, len(texts), GROUP):
        group = texts[g : g + GROUP]
        lines = "\n".join(f"{text}\n- Fact: item {g + i} is noted: {text}" for i, text in enumerate(group))
        out.append(
            (
                "compaction",
                {**generic, "event": "compaction", "session_id": f"c{g}", "summary": f"Session summary {g}.\n{lines}"},
            )
        )
        out.append(
            (
                "turn_end",
                {
                    **generic,
                    "event": "turn_end",
                    "session_id": f"t{g}",
                    "user_messages": [f"remember that {text}" for text in group],
                    "operations": [
                        {
                            "tool": "Bash",
                            "input": f"echo {text}",
                            "output": text,
                            "call_id": f"k{g}-{i}",
                            "result_id": f"k{g}-{i}",
                        }
                        for i, text in enumerate(group)
                    ],
                    "final_message": "Done; I used " + " and ".join(group),
                },
            )
        )
    for i, text in enumerate(texts):
        out.append(("user_prompt", {**generic, "event": "user_prompt", "session_id": f"u{i}", "prompt": text}))
        out.append(
            (
                None,
                {
                    "hook_event_name": "UserPromptSubmit",
                    "session_id": f"cc{i}",
                    "cwd": "/work/app",
                    "prompt": f"remember that {text}",
                    "transcript_path": "/nonexistent",
                },
            )
        )
    return out


def run(*, database_url: str | None = None, workdir: Path | None = None) -> dict[str, Any]:
    """Plant, consolidate, scan; raises AssertionError naming each leak."""
    from memory_core.config import load_settings
    from tests.hostile.secrets_corpus import POSITIVES
    from tests.support.fake_model import FakeModelServer
    from workers.consolidate import consolidate_source

    # A PIN of four digits turns up by chance in binary files (timestamps in the queue): the
    # scan looks for secrets of eight characters or more; the redaction tests cover the rest.
    secrets = [secret for _, secret in POSITIVES if len(secret) >= 8]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memevo-secrets-", dir=workdir) as tmp:
        root = Path(tmp)
        serve_log = root / "serve.log"
        with new_place(root / "home", database_url) as place:
            home = place.home
            with (
                FakeModelServer() as model,
                gateway(place, serve_log),
                place.active(MEMEVO_MODEL_URL=model.base_url, MEMEVO_MODEL="fake"),
            ):
                hook_errors = []
                calls = _payloads([text for text, _ in POSITIVES])
                for event, payload in calls:
                    result = hook_call(json.dumps(payload).encode(), event, None)
                    if result.stderr:
                        hook_errors.append(result.stderr)
                sources = place.query("SELECT COUNT(*) FROM sources")[0][0]
                settings = load_settings()
                outcomes: dict[str, int] = {}
                for _ in range(sources + 5):
                    outcome = consolidate_source(settings, None)
                    outcomes[str(outcome.status)] = outcomes.get(str(outcome.status), 0) + 1
                    if str(outcome.status) != "done":
                        break
                requests = [json.dumps(body, ensure_ascii=False) for body in model.requests]
            claims = place.query("SELECT COUNT(*) FROM memories")[0][0]
            stored: dict[str, bytes] = {}
            if place.on_postgres:  # on SQLite the store is memory.db, one of the files below
                stored = {f"table {name}": data for name, data in stored_bytes(place).items()}
                stored["memevo serve's output"] = serve_log.read_bytes() if serve_log.exists() else b""
        files = [p for p in home.rglob("*") if p.is_file()]
        stored.update({str(path.relative_to(home)): path.read_bytes() for path in files})
        leaks: list[str] = []
        scanned = 0
        for where, data in stored.items():
            scanned += len(data)
            for secret in secrets:
                forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
                if any(form in data for form in forms):
                    leaks.append(f"{where}: {secret[:12]}…")
        for n, body in enumerate(requests):
            for secret in secrets:
                if secret in body or json.dumps(secret)[1:-1] in body:
                    leaks.append(f"model request {n}: {secret[:12]}…")
        figures = {
            "backend": place.backend,
            "secrets_planted": len(POSITIVES),
            "secrets_searched": len(secrets),
            "hook_calls": len(calls),
            "hook_errors": len(hook_errors),
            "sources": sources,
            "consolidated": outcomes.get("done", 0),
            "claims": claims,
            "files_scanned": len(files),
            "places_scanned": len(stored),
            "bytes_scanned": scanned,
            "model_requests_scanned": len(requests),
            "leaks": len(leaks),
            "seconds": round(time.monotonic() - started, 1),
        }
    assert not hook_errors, hook_errors[:5]
    assert figures["consolidated"] == sources and sources >= 2 * len(POSITIVES) // GROUP, (figures, outcomes)
    assert claims >= sources, figures
    assert not leaks, leaks
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in a fresh schema of this database")
    print_figures("planted_secrets", run(database_url=parser.parse_args().database_url))


if __name__ == "__main__":
    main()
