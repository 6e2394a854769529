"""A real model in the loop: what memevo learns from a fixed set of realistic sources.

Not part of CI: it needs an OpenAI-compatible server with a real model (bench/README.md says
how to run Qwen2.5-Coder-1.5B under llama-cpp-python on this machine). It builds a fresh
state dir, feeds the sources through real hook processes (compaction summaries, user
statements in English and Chinese, corrections that refer back, a commit turn and a rejected
push turn), runs the worker in this process against the server, and reports:

- first-try validity: of the sources attempted, the share whose first attempt was done
  (accepted and applied), and of those whose first attempt got an answer, the share whose
  answer was not refused (invalid output, cut off, or rejected by a write guard);
- failures by code and reason, over all attempts;
- seconds per attempt (the first call apart: a local server warms on it);
- whether a retry after a refused answer then passed (``--retries``, default 1: a refused
  source is made due again at once, as its backoff would after a minute);
- the claims learned and the replacements made;
- recall: a fixed set of questions asked with ``memevo recall --batch``; a question counts
  as answered when a digest line holds one of its expected strings.

    python bench/real_model.py --url http://127.0.0.1:8000/v1 --model qwen2.5-coder-1.5b \\
        [--json-mode auto] [--retries 1] [--out result.json] [--keep]

Restart the server between runs: its prompt cache changes the answers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env, memevo_exe  # noqa: E402

CWD = "/work/shop-api"
ANSWER_FAILURES = ("invalid_output", "output_limit", "write_rejected")


def _turn(session: str, messages: list[str], operations: list[dict[str, str]] | None = None, final: str = "") -> dict:
    return {
        "event": "turn_end",
        "session_id": session,
        "user_messages": messages,
        "operations": operations or [],
        "final_message": final,
    }


def _bash(call: str, command: str, output: str, status: str = "ok") -> dict[str, str]:
    return {"tool": "Bash", "input": command, "output": output, "status": status, "call_id": call, "result_id": call}


# Phase 1: what a first day leaves. Phase 2 (after the worker ran): corrections that refer
# back, a commit turn and a rejected push turn for the state the first summary labelled.
PHASE_1: list[dict[str, Any]] = [
    {
        "event": "compaction",
        "session_id": "s1",
        "summary": (
            "Session summary. We moved the shop-api test suite from nose to pytest; CI now runs "
            "`pytest -q` on Python 3.12. The staging database listens on port 6543 (db1.staging). "
            "The api service is deployed to fly.io with `fly deploy --remote-only`. The user wants "
            "ruff for linting and formatting instead of black and flake8.\n"
            "Decision: use ruff for linting and formatting\n"
            "Status: Widget parser fix: not committed yet"
        ),
    },
    {
        "event": "compaction",
        "session_id": "s2",
        "summary": (
            "会话摘要：shop 前端从 webpack 迁移到了 Vite，构建时间从 90 秒降到 12 秒。生产环境的日志在 "
            "/var/log/shop/app.log。支付回调接口 /api/pay/notify 需要校验签名，签名密钥从环境变量 "
            "PAY_SIGN_KEY 读取。\n偏好：代码注释用中文写"
        ),
    },
    _turn("s3", ["Remember that the staging database listens on port 6543."]),
    _turn("s4", ["记住：生产环境的日志在 /var/log/shop/app.log，保留 14 天。"]),
    _turn("s5", ["From now on, write commit messages in English and keep the subject under 72 characters."]),
    _turn("s6", ["定了，缓存就用 Redis 7，不再用 memcached。"]),
    _turn("s7", ["We deploy the api service on Tuesdays and Thursdays only."]),
    _turn("s8", ["以后提交前先跑 ruff 和 pytest。"]),
    _turn("s9", ["Remember that the cache TTL for product pages is 300 seconds."]),
]
PHASE_2: list[dict[str, Any]] = [
    _turn(
        "s10",
        [
            "The staging database moved to the new cluster last night.",
            "Remember that it now listens on port 6544, not 6543.",
        ],
    ),
    _turn("s11", ["生产日志的保留期改了。记住：它现在保留 30 天，不是 14 天。"]),
    _turn(
        "s12",
        ["Commit the widget parser fix."],
        [
            _bash("c1", "pytest -q tests/test_widget_parser.py", "12 passed in 0.84s"),
            _bash("c2", 'git commit -am "Fix widget parser for nested tags"', "[main 4f2a9c1] Fix widget parser"),
        ],
        "Committed the widget parser fix.",
    ),
    _turn(
        "s13",
        ["Now push the widget parser fix."],
        [
            _bash(
                "c3",
                "git push origin main",
                " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs",
                "error",
            )
        ],
        "The push was rejected: the remote has new commits.",
    ),
    {
        "event": "compaction",
        "session_id": "s14",
        "summary": (
            "Session summary. The widget parser fix (nested tags) is committed locally as 4f2a9c1; "
            "pushing was rejected because origin/main has new commits, so it still needs a rebase and "
            "a push. The product page cache TTL stays at 300 seconds."
        ),
    },
]
# (question, strings one of which a digest line must hold)
QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("which port does the staging database listen on", ("6544",)),
    ("where are the production logs", ("/var/log/shop/app.log",)),
    ("生产日志保留多久", ("30",)),
    ("what do we use for caching", ("Redis",)),
    ("which language for commit messages", ("English",)),
    ("when do we deploy the api service", ("Tuesday",)),
    ("提交前要跑什么", ("ruff",)),
    ("what is the cache TTL for product pages", ("300",)),
    ("how does CI run the tests", ("pytest",)),
    ("what is the state of the widget parser fix", ("push", "rebase", "推送")),
    ("前端用什么构建", ("Vite",)),
]


def hook(env: dict[str, str], payload: dict[str, Any]) -> None:
    body = {"schema": "memevo.hook/v1", "agent": "bench", "cwd": CWD, **payload}
    subprocess.run(
        [memevo_exe(), "hook", payload["event"]], input=json.dumps(body), text=True, env=env, check=True, cwd=REPO
    )


def make_due(home: Path, retries: int) -> int:
    """Sources refused on their answer that may still be retried: due now."""
    from memory_core.store.engines.database import Store

    with Store.open(home) as store, store.transaction() as conn:
        cursor = conn.execute(
            "UPDATE sources SET next_due_at=0 WHERE state='pending' AND consecutive_failures BETWEEN 1 AND ? "
            "AND last_error_code IN (?, ?, ?)",
            (retries, *ANSWER_FAILURES),
        )
        return cursor.rowcount or 0


def run_worker(home: Path, retries: int) -> list[dict[str, Any]]:
    """Every due source, each retry after a refused answer up to ``retries``; one record per attempt."""
    from memory_core.config import load_settings
    from workers.consolidate import AttemptStatus, consolidate_source

    settings = load_settings()
    attempts: list[dict[str, Any]] = []
    while True:
        started = time.monotonic()
        outcome = consolidate_source(settings, None)
        took = time.monotonic() - started
        if outcome.status == AttemptStatus.NOT_ELIGIBLE:
            if make_due(home, retries):
                continue
            return attempts
        attempts.append(
            {
                "source_id": outcome.source_id,
                "status": str(outcome.status),
                "error": f"{outcome.error_code} ({outcome.error_reason})" if outcome.error_code else None,
                "code": outcome.error_code,
                "seconds": round(took, 2),
                "added": len(outcome.changes.get("added", [])),
                "superseded": len(outcome.changes.get("superseded", [])),
            }
        )
        print(f"  {attempts[-1]}", file=sys.stderr, flush=True)


def sources(home: Path) -> dict[str, dict[str, Any]]:
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        rows = store.conn.execute("SELECT id, source_type, body, state, attempt FROM sources").fetchall()
    return {r[0]: {"type": r[1], "text": json.loads(r[2])["text"], "state": r[3], "attempt": r[4]} for r in rows}


def claims(home: Path) -> list[dict[str, Any]]:
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        rows = store.conn.execute("SELECT body FROM memories").fetchall()
    out = []
    for (body,) in rows:
        data = json.loads(body)
        out.append(
            {
                "kind": data["kind"],
                "content": data["content"],
                "status": data.get("status", "active"),
                "by_model": bool(data.get("model_id")),
                "replaces": data.get("replaces"),
                "search_terms": data.get("search_terms", []),
            }
        )
    return out


def recall(env: dict[str, str]) -> list[dict[str, Any]]:
    lines = "\n".join(json.dumps({"id": str(i), "query": q}) for i, (q, _) in enumerate(QUESTIONS))
    done = subprocess.run(
        [memevo_exe(), "recall", "--batch", "-", "--json"],
        input=lines,
        text=True,
        env=env,
        capture_output=True,
        check=True,
        cwd=REPO,
    )
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answered = []
    for (question, expected), result in zip(QUESTIONS, results, strict=True):
        excerpts = [str(claim.get("excerpt", "")) for claim in result.get("claims", [])]
        hit = any(e in excerpt for excerpt in excerpts for e in expected)
        answered.append({"question": question, "answered": hit, "excerpts": excerpts})
    return answered


def report(home: Path, attempts: list[dict[str, Any]], answers: list[dict[str, Any]]) -> dict[str, Any]:
    by_source: dict[str, list[dict[str, Any]]] = {}
    for attempt in attempts:
        by_source.setdefault(attempt["source_id"], []).append(attempt)
    called = list(by_source.values())  # the sources the worker attempted
    first_done = sum(1 for a in called if a[0]["code"] is None)
    answered = [a for a in called if a[0]["code"] is None or a[0]["code"] in ANSWER_FAILURES]
    first_ok = sum(1 for a in answered if a[0]["code"] is None)
    retried = [a for a in called if a[0]["code"] in ANSWER_FAILURES and len(a) > 1]
    seconds = [a["seconds"] for a in attempts]
    learned = claims(home)
    return {
        "sources": len(sources(home)),
        "attempts": len(attempts),
        "first_try_done": f"{first_done}/{len(called)}",
        "first_try_validity": round(first_done / len(called), 3) if called else None,
        "first_answers_accepted": f"{first_ok}/{len(answered)}",
        "retry_then_passed": f"{sum(1 for a in retried if a[1]['code'] is None)}/{len(retried)}",
        "failures": dict(Counter(a["error"] for a in attempts if a["error"])),
        "seconds": {
            "first_call": seconds[0] if seconds else None,
            "median": round(statistics.median(seconds[1:]), 2) if len(seconds) > 1 else None,
            "max_after_first": max(seconds[1:]) if len(seconds) > 1 else None,
            "total": round(sum(seconds), 1),
        },
        "claims_active": [c for c in learned if c["status"] == "active"],
        "claims_by_model": sum(1 for c in learned if c["by_model"]),
        "replacements": sum(1 for c in learned if c["replaces"]),
        "recall_answered": f"{sum(1 for a in answers if a['answered'])}/{len(answers)}",
        "recall": answers,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/v1", help="the server's OpenAI-compatible base URL")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="the model name to send")
    parser.add_argument("--json-mode", default="auto", help="MEMEVO_MODEL_JSON_MODE (default auto)")
    parser.add_argument("--attempt-seconds", default="300", help="MEMEVO_ATTEMPT_SECONDS (default 300)")
    parser.add_argument("--first-call-seconds", default="600", help="MEMEVO_FIRST_CALL_SECONDS (default 600)")
    parser.add_argument("--retries", type=int, default=1, help="retries of a refused answer, made due at once")
    parser.add_argument("--out", type=Path, help="also write the report here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the state dir and print its path")
    args = parser.parse_args(argv)

    home = Path(tempfile.mkdtemp(prefix="memevo-real-model-")) / "home"
    env = bench_env(
        home,
        MEMEVO_MODEL_URL=args.url,
        MEMEVO_MODEL=args.model,
        MEMEVO_MODEL_JSON_MODE=args.json_mode,
        MEMEVO_ATTEMPT_SECONDS=args.attempt_seconds,
        MEMEVO_FIRST_CALL_SECONDS=args.first_call_seconds,
    )
    for name in ("MEMEVO_DATABASE_URL", "MEMEVO_QUEUE_URL"):
        env.pop(name, None)
    os.environ.clear()
    os.environ.update(env)  # the worker below runs in this process

    attempts: list[dict[str, Any]] = []
    for phase, payloads in (("1", PHASE_1), ("2", PHASE_2)):
        print(f"phase {phase}: {len(payloads)} hook calls", file=sys.stderr, flush=True)
        for payload in payloads:
            hook(env, payload)
        attempts += run_worker(home, args.retries)
    result = report(home, attempts, recall(env))
    result["json_mode"] = args.json_mode
    result["model"] = args.model
    if args.keep:
        result["state_dir"] = str(home)
    text = json.dumps(result, ensure_ascii=False, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
