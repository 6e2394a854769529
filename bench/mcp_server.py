"""`memevo mcp`: how fast the server starts, and how fast it answers lookups at 10k and 100k claims.

    python bench/mcp_server.py [--runs 15] [--lookups 40] [--sizes 10000,100000] [--cache DIR]

* **start**: from spawning the installed ``memevo mcp`` to the ``initialize`` answer, and on to
  the ``tools/list`` answer, against a bare ``python -c pass`` timed in the same rounds;
* **lookup**: one long-lived server per store (``bench/distinct_store.py``'s ``distinct``
  store, or the synthetic corpus of ``recall_speed.py`` without ``../shared/eval``), asked
  ``memory_recall`` with the sets' questions that recall answers, then ``memory_explain`` and
  ``memory_get``: round trips through the pipe, as an agent sees them. The hook's recall
  budget is the yardstick: ``user_prompt`` within a bare interpreter + 40 ms at 100k claims
  (docs/hooks.md), so a warm lookup should take well under 40 ms;
* the server's peak memory (``VmHWM``) after the lookups, and that the store is unchanged.

Medians after two discarded warm-up rounds; ``--cache DIR`` keeps the built stores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import REPO, bench_env, memevo_exe, summary, time_command  # noqa: E402
from bench.hooks import built_store, copy_home, matching_questions  # noqa: E402

WARMUP = 2
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


class Server:
    """A running ``memevo mcp`` spoken to line by line."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [memevo_exe(), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=REPO,
        )
        self.next_id = 1

    def ask(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request_id, self.next_id = self.next_id, self.next_id + 1
        self.process.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}).encode() + b"\n"
        )
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        if answer.get("id") != request_id or "error" in answer:
            raise RuntimeError(f"{method}: {answer}")
        return answer["result"]

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        started = time.perf_counter()
        result = self.ask("tools/call", {"name": tool, "arguments": arguments})
        return (time.perf_counter() - started) * 1000, result

    def peak_kb(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def start_times(env: dict[str, str]) -> tuple[float, float]:
    """Milliseconds from spawn to the initialize answer, and to the tools/list answer."""
    started = time.perf_counter()
    server = Server(env)
    server.ask("initialize", INIT)
    initialized = (time.perf_counter() - started) * 1000
    server.ask("tools/list")
    listed = (time.perf_counter() - started) * 1000
    server.close()
    return initialized, listed


def digest_of(home: Path) -> str:
    return hashlib.sha256((home / "memory.db").read_bytes()).hexdigest()


def lookups(home: Path, questions: list[str], rounds: int) -> dict[str, Any]:
    env = bench_env(home)
    before = digest_of(home)
    server = Server(env)
    server.ask("initialize", INIT)
    recall_ms, explain_ms, get_ms, answered, ids = [], [], [], 0, []
    for round_number in range(rounds + 1):
        for question in questions:
            ms, result = server.call("memory_recall", {"query": question})
            text = result["content"][0]["text"]
            if round_number == 0:  # a warm-up pass
                if text.startswith("<memevo-recall>"):
                    answered += 1
                    ids.append(json.loads(text.splitlines()[2])["id"])
                continue
            recall_ms.append(ms)
    for question in questions[:10]:
        explain_ms.append(server.call("memory_explain", {"query": question})[0])
    for claim_id in ids[:10]:
        get_ms.append(server.call("memory_get", {"id": claim_id})[0])
    peak = server.peak_kb()
    server.close()
    return {
        "questions": len(questions),
        "answered": answered,
        "memory_recall": summary(recall_ms),
        "memory_explain": summary(explain_ms),
        "memory_get": summary(get_ms) if get_ms else None,
        "server_peak_mb": round(peak / 1024, 1),
        "store_unchanged": digest_of(home) == before,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed start-up rounds (default 15)")
    parser.add_argument("--lookups", type=int, default=3, help="passes over the questions per store (default 3)")
    parser.add_argument("--questions", type=int, default=40, help="questions per store (default 40)")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--cache", type=Path, help="keep the built stores here for later runs")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    store = "distinct" if (distinct_store.EVAL / "locomo-dev.json").exists() else "synthetic"

    with tempfile.TemporaryDirectory(prefix="memevo-bench-mcp-") as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache or tmp / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        now = time.time()
        homes, built = {}, {}
        for size in sizes:
            home, info = built_store(cache, store, size, now)
            homes[size], built[size] = copy_home(home, tmp / f"{store}-{size}"), info
        candidates = distinct_store.questions() if store == "distinct" else []
        questions = (
            matching_questions(candidates, list(homes.values()), time.time(), args.questions) if candidates else []
        )
        if not questions:
            questions = ["sqlite port", "deploy script", "staging database"]

        empty = tmp / "empty-state"
        empty.mkdir()
        bare, initialized, listed = [], [], []
        for round_number in range(WARMUP + args.runs):
            b = time_command([sys.executable, "-c", "pass"])
            i, listing = start_times(bench_env(empty))
            if round_number >= WARMUP:
                bare.append(b)
                initialized.append(i)
                listed.append(listing)
        report: dict[str, Any] = {
            "store": store,
            "start": {
                "bare_python": summary(bare),
                "to_initialize": summary(initialized),
                "to_tools_list": summary(listed),
            },
            "lookup": {},
        }
        for size, home in homes.items():
            report["lookup"][str(size)] = {"built": built[size], **lookups(home, questions, args.lookups)}
        big, small = str(max(sizes)), str(min(sizes))
        report["lookup_ratio_largest_smallest"] = round(
            report["lookup"][big]["memory_recall"]["median_ms"] / report["lookup"][small]["memory_recall"]["median_ms"],
            2,
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
