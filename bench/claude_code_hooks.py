"""Whole `memevo hook --agent claude-code` processes fed Claude Code's native payloads, against
a bare `python -c 'import sqlite3'`, interleaved in one run on this machine.

    python bench/claude_code_hooks.py [--runs 20] [--quick]

Two hooks, run as Claude Code runs them (the installed console script, the payload on stdin):

* ``UserPromptSubmit`` against a state dir of 10k synthetic claims (the corpus of
  ``recall_speed.py``), with a prompt that matches some of them, so the digest is built and
  printed; the hook also reads the transcript for the earlier user turns and stashes the
  prompt for Stop.
* ``Stop`` for a turn whose user message says "remember that …": the hook reads the turn
  from the transcript and captures a source (and enqueues a nudge; no worker runs, the
  nudges stay in queue.db). Each timed run ends a turn with a different statement, so every
  run captures a new source (``stop_new_source``); the same Stop sent again right after is
  also timed (``stop_repeat``): the dedupe finds the source, nothing is written or nudged.

The same two events are also posted to a warm ``memevo serve`` (Claude Code's ``http``
hooks, installed by ``memevo install claude-code --transport http``), one connection per
request as Claude Code makes them: ``http_user_prompt_submit_10k``, ``http_stop_new_source``
and ``http_stop_repeat`` are whole round trips seen from the client. Before timing, the
server's answer to a prompt is checked byte for byte against the command hook's output.

Both read the same synthetic 200-record transcript in Claude Code's JSON-lines format, built
from the records of a real one (``../shared/agents/claude-code``): user turns, assistant
text and tool_use records, tool results, attachments, queue and mode records, with fresh
ids per copied turn and one parent chain. Its last turn is the "remember that …" turn.
Payloads are the real ones with the session, paths and prompt replaced. MEMEVO_HOME and
HOME are temporary directories. Medians after two discarded warm-up rounds; ratios and
differences come from the same run, never from fixed thresholds.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env, memevo_exe, summary, time_command  # noqa: E402
from bench.recall_speed import Corpus, build  # noqa: E402

SHARED = REPO.parent / "shared" / "agents" / "claude-code"
REAL_SESSION = "56190f3c-58d2-4582-8686-30cf128cb449"
REAL_TRANSCRIPT = SHARED / "transcripts" / f"-home-user-project__{REAL_SESSION}.jsonl"
TEMPLATE_TURN = "24bac910-18e9-4b54-8aaf-0d1197263a20"  # "Check the repo state": two Bash calls, one failing
TRANSCRIPT_RECORDS = 200
CLAIMS = 10_000
WARMUP = 2

SESSION = "5e55b3c4-0000-4000-8000-00000000be4c"
STOP_PROMPT_ID = "5e55b3c4-0000-4000-8000-0000000057a9"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_FAKE_IDS = re.compile(r"\b(msg_fake|toolu_fake|req_fake_)([0-9a-f]+)")


def real_turns() -> list[list[dict[str, Any]]]:
    """The real transcript cut into turns (each ends with its ``last-prompt`` record),
    without the compaction turn (a summary appears once per compaction, not per turn)."""
    turns, current = [], []
    for line in REAL_TRANSCRIPT.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        current.append(record)
        if record.get("type") == "last-prompt":
            turns.append(current)
            current = []
    if current:
        turns.append(current)
    return [t for t in turns if not any(r.get("isCompactSummary") for r in t)]


def copy_turn(turn: list[dict[str, Any]], n: int, cwd: str, prompt_id: str | None = None) -> list[dict[str, Any]]:
    """Turn ``turn`` as the ``n``-th turn of the bench session: new uuids, message, tool and
    request ids, this session and cwd, the user's words marked with ``n`` (so no two turns
    say the same thing)."""
    text = json.dumps(turn)
    text = _UUID.sub(
        lambda m: (
            m.group(0) if m.group(0) == REAL_SESSION else str(uuid.uuid5(uuid.NAMESPACE_URL, f"{n}:{m.group(0)}"))
        ),
        text,
    )
    text = _FAKE_IDS.sub(lambda m: f"{m.group(1)}{n:04d}{m.group(2)}", text)
    records = json.loads(text)
    for record in records:
        if "sessionId" in record:
            record["sessionId"] = SESSION
        if "cwd" in record:
            record["cwd"] = cwd
        if prompt_id and "promptId" in record:
            record["promptId"] = prompt_id
        message = record.get("message")
        if (
            record.get("type") == "user"
            and isinstance(message, dict)
            and isinstance(message.get("content"), str)
            and not record.get("isMeta")
        ):
            message["content"] += f" (step {n})"
        if record.get("type") == "queue-operation" and isinstance(record.get("content"), str):
            record["content"] += f" (step {n})"
    return records


def build_transcript(cwd: str) -> tuple[list[dict[str, Any]], int]:
    """``TRANSCRIPT_RECORDS`` records: copies of the real turns, then the Stop turn (from the
    real two-Bash-call turn) whose user message :func:`with_statement` fills in; returns the
    records and the length of that last turn."""
    turns = real_turns()
    template = next(t for t in turns if any(r.get("promptId") == TEMPLATE_TURN for r in t))
    last = copy_turn(template, 9999, cwd, prompt_id=STOP_PROMPT_ID)
    records: list[dict[str, Any]] = []
    n = 0
    while len(records) < TRANSCRIPT_RECORDS - len(last):
        records += copy_turn(turns[n % len(turns)], n, cwd)
        n += 1
    records = records[: TRANSCRIPT_RECORDS - len(last)] + last  # the turn cut short was interrupted
    parent = None
    for record in records:  # one main chain, as Claude Code writes it
        if "parentUuid" in record:
            record["parentUuid"] = parent
        if "uuid" in record:
            parent = record["uuid"]
    return records, len(last)


def with_statement(records: list[dict[str, Any]], last_turn: int, statement: str) -> list[dict[str, Any]]:
    """The transcript whose last turn (``last_turn`` records) the user typed as ``statement``."""
    turn = copy.deepcopy(records[-last_turn:])
    first = next(r for r in turn if r.get("promptId") == STOP_PROMPT_ID and r.get("type") == "user")
    first["message"]["content"] = statement
    for record in turn:  # the queued prompt and the session's last-prompt record say it too
        if record.get("type") == "queue-operation" and "content" in record:
            record["content"] = statement
        elif record.get("type") == "last-prompt":
            record["lastPrompt"] = statement
    return records[:-last_turn] + turn


def write_transcript(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")


def statement(i: int) -> str:
    return f"Please remember that release build {i} of the billing service needs node 20 and port {8000 + i}."


def real_payload(name: str) -> dict[str, Any]:
    return json.loads((SHARED / "payloads" / f"turn2-bash.{name}.1.json").read_text(encoding="utf-8"))["payload"]


def run_hook(payload: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [memevo_exe(), "hook", "--agent", "claude-code"],
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        check=True,
        cwd=REPO,
    )


def find_prompt(corpus: Corpus, texts: list[str], payload: dict[str, Any], env: dict[str, str]) -> tuple[str, str]:
    """A prompt built from a claim's words for which the real hook prints a digest; returns the
    prompt and the hook's additionalContext."""
    for attempt in range(40):
        words = corpus.query(texts[(attempt * 7919) % len(texts)])
        prompt = f"Why does the {words} step break the deploy again?"
        done = run_hook({**payload, "prompt": prompt, "prompt_id": str(uuid.uuid4())}, env)
        if done.stderr:
            raise SystemExit(f"UserPromptSubmit hook failed: {done.stderr.decode(errors='replace')}")
        if done.stdout.strip():
            context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
            if context:
                return prompt, context
    raise SystemExit("no prompt produced a recall digest")


def start_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """``memevo serve --port 0`` on the bench's state dir: the process, its port and token."""
    with open(log, "wb") as err:
        server = subprocess.Popen(
            [memevo_exe(), "serve", "--port", "0"], env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=REPO
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.poll() is None:
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", log.read_text(errors="replace"))
        if found:
            token = (Path(env["MEMEVO_HOME"]) / "hook-token").read_text().strip()
            return server, int(found.group(1)), token
        time.sleep(0.05)
    server.kill()
    raise SystemExit(f"memevo serve did not start: {log.read_text(errors='replace')}")


def post(port: int, token: str, event: str, payload: dict[str, Any]) -> tuple[float, int, bytes]:
    """One http hook as Claude Code sends it, on a new connection: ``(ms, status, body)``."""
    body = json.dumps(payload).encode()
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(
            "POST",
            f"/hooks/claude-code/{event}",
            body=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        response = connection.getresponse()
        answer = response.read()
    finally:
        connection.close()
    return (time.perf_counter() - started) * 1000, response.status, answer


def count(db: Path, sql: str) -> int | None:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command (default 20)")
    parser.add_argument("--quick", action="store_true", help="5 runs, for a smoke check")
    args = parser.parse_args()
    runs = 5 if args.quick else args.runs
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memevo-cc-hooks-") as tmp:
        home = Path(tmp) / "memevo"
        user_home = Path(tmp) / "user"
        project = user_home / "project"
        project.mkdir(parents=True)
        corpus = Corpus()
        started = time.perf_counter()
        texts = build(home, corpus, CLAIMS, time.time())
        build_s = time.perf_counter() - started

        transcript = user_home / ".claude" / "projects" / "-tmp-user-project" / f"{SESSION}.jsonl"
        transcript.parent.mkdir(parents=True)
        records, last_turn = build_transcript(str(project))
        write_transcript(transcript, with_statement(records, last_turn, statement(0)))

        env = bench_env(home, HOME=str(user_home))
        # An installed package has its bytecode compiled (as recall_speed.py allows).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(project)}
        prompt_payload = {**real_payload("UserPromptSubmit"), **base}
        stop_payload = {**real_payload("Stop"), **base, "prompt_id": STOP_PROMPT_ID}

        prompt, digest = find_prompt(corpus, texts, prompt_payload, env)
        db = home / "memory.db"
        statements_sql = "SELECT count(*) FROM sources WHERE source_type = 'user_statement'"
        before = count(db, statements_sql) or 0
        done = run_hook(stop_payload, env)
        if done.stdout or done.stderr or count(db, statements_sql) != before + 1:
            raise SystemExit(f"Stop hook did not capture the statement: {done.stdout!r} {done.stderr!r}")

        server, port, token = start_server(env, Path(tmp) / "serve.log")
        same = {**prompt_payload, "prompt": prompt, "prompt_id": str(uuid.uuid4())}
        if post(port, token, "UserPromptSubmit", same)[1:] != (200, run_hook(same, env).stdout):
            server.kill()
            raise SystemExit("memevo serve answered the prompt otherwise than the command hook")

        bare, prompt_ms, stop_new, stop_repeat = [], [], [], []
        http_prompt, http_stop_new, http_stop_repeat = [], [], []
        for i in range(runs + WARMUP):
            # The turn that just ended, with a statement no earlier run captured.
            write_transcript(transcript, with_statement(records, last_turn, statement(i + 1)))
            b = time_command([sys.executable, "-c", "import sqlite3"], env=env)
            p = time_command(
                [memevo_exe(), "hook", "--agent", "claude-code"],
                env=env,
                input_bytes=json.dumps({**prompt_payload, "prompt": prompt, "prompt_id": str(uuid.uuid4())}).encode(),
            )
            s = time_command(
                [memevo_exe(), "hook", "--agent", "claude-code"], env=env, input_bytes=json.dumps(stop_payload).encode()
            )
            r = time_command(
                [memevo_exe(), "hook", "--agent", "claude-code"], env=env, input_bytes=json.dumps(stop_payload).encode()
            )
            hp = post(
                port, token, "UserPromptSubmit", {**prompt_payload, "prompt": prompt, "prompt_id": str(uuid.uuid4())}
            )
            write_transcript(transcript, with_statement(records, last_turn, statement(runs + WARMUP + i + 1)))
            hs = post(port, token, "Stop", stop_payload)
            hr = post(port, token, "Stop", stop_payload)
            if (hp[1], hs[1:], hr[1:]) != (200, (204, b""), (204, b"")):
                server.kill()
                raise SystemExit(f"memevo serve answered {hp[1]}, {hs[1:]}, {hr[1:]}")
            if i >= WARMUP:  # the first rounds only warm the disk and bytecode caches
                bare.append(b)
                prompt_ms.append(p)
                stop_new.append(s)
                stop_repeat.append(r)
                http_prompt.append(hp[0])
                http_stop_new.append(hs[0])
                http_stop_repeat.append(hr[0])
        server.terminate()
        server.wait(timeout=10)

        captured = (count(db, statements_sql) or 0) - before - 1
        log = home / "logs" / "hooks.log"
        result: dict[str, Any] = {
            "setup": {
                "claims": CLAIMS,
                "build_s": round(build_s, 1),
                "db_mb": round(db.stat().st_size / 1e6, 1),
                "transcript_records": len(records),
                "transcript_kb": round(transcript.stat().st_size / 1e3, 1),
                "prompt": prompt,
                "digest_bytes": len(digest.encode()),
                "runs": runs,
            },
            "bare_python_import_sqlite3": summary(bare),
            "user_prompt_submit_10k": summary(prompt_ms),
            "stop_new_source": summary(stop_new),
            "stop_repeat": summary(stop_repeat),
            "http_user_prompt_submit_10k": summary(http_prompt),
            "http_stop_new_source": summary(http_stop_new),
            "http_stop_repeat": summary(http_stop_repeat),
            "checks": {
                "stop_sources_captured": captured,
                "stop_runs": 2 * (runs + WARMUP),
                "nudges_queued": count(home / "queue.db", "SELECT count(*) FROM task"),
                "hook_failures_logged": len(log.read_text().splitlines()) if log.exists() else 0,
            },
        }
    base_ms = result["bare_python_import_sqlite3"]["median_ms"]
    for key in ("user_prompt_submit_10k", "stop_new_source", "stop_repeat"):
        result[key]["ratio_to_bare"] = round(result[key]["median_ms"] / base_ms, 2)
        result[key]["extra_ms"] = round(result[key]["median_ms"] - base_ms, 1)
    for key in ("user_prompt_submit_10k", "stop_new_source", "stop_repeat"):
        warm = result[f"http_{key}"]
        warm["command_over_http"] = round(result[key]["median_ms"] / warm["median_ms"], 1)
    result["bench_s"] = round(time.perf_counter() - started_all, 1)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
