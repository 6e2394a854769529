"""Every hook as an agent runs it, against a bare `python -c 'import sqlite3'`, in one
interleaved run at 10k and 100k claims; the import time of the hook path; the peak memory of
each hook process; and in-process recall of the worst query shapes at both sizes.

    python bench/hooks.py [--runs 15] [--sizes 10000,100000] [--stores distinct,copies]
                          [--cache DIR] [--quick] [--questions FILE]
    python bench/hooks.py --syncs [--runs 15] [--database-url postgresql://…]

``--syncs`` measures the capture hooks' disk syncs (``fsync``/``fdatasync`` counted with
strace) and wall time over bare instead, with and without a running worker
(``bench/capture_syncs.py``, docs/hooks.md "Disk syncs of a capture").

Two stores (``bench/distinct_store.py``), each built at every size:

* ``distinct`` (the headline): claims that all differ, from the development sets of all
  three benchmarks (``../shared/eval``: LoCoMo observations, MemDaily messages, MADial
  memories in English and Chinese), varied pass after pass in their people, places,
  numbers and projects, 500 claims a project; the setup reports its bodies (distinct
  indexed contents), one per claim;
* ``copies``: LoCoMo's 353 observations repeated word for word to size, one copy per
  project (``/work/project-N``), as a team that imports the same facts into many
  projects has them: 353 bodies at any size. Its hooks are named ``copies_…``.

Questions are the sets' own (LoCoMo categories 1-4, MemDaily, MADial's last user turn, in
turn) that print a digest at the smaller size of each store; ``--questions FILE`` (a JSON
list for the first store, or an object of lists by store) fixes them, so two builds are
compared on the same questions. Without the eval data the synthetic corpus of
``recall_speed.py`` is used (its ``build``). The hooks, each a whole process of the installed
console script with the payload on stdin:

* generic ``user_prompt`` (prints a digest) on every store and size; ``turn_end`` with a
  "remember that …" cue (a new statement every run, so every run captures a source and
  enqueues a nudge) at every size and ``session_start`` (enqueues the recover nudge), on
  the first store;
* Claude Code ``UserPromptSubmit`` on every store and size and ``Stop`` at every size of the
  first store, with the 200-record transcript of ``claude_code_hooks.py`` (needs
  ``../shared/agents/claude-code``).

Medians after two discarded warm-up rounds; every round runs bare, then each hook at each
size, so load on the machine hits all alike. ``--cache DIR`` keeps the built stores (keyed by
store, size, index and schema version) for the next run; each run works on a copy.
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
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import REPO, bench_env, memevo_exe, summary, time_command  # noqa: E402
from bench.hook_measures import import_profile, in_process, peak_kb  # noqa: E402
from bench.hook_payloads import claude_code_setup, generic  # noqa: E402
from bench.hook_stores import built_store, chosen_questions, copy_home  # noqa: E402

# matching_questions: bench/mcp_server.py imports it from here.
from bench.hook_stores import matching_questions as matching_questions  # noqa: E402
from memory_core.store.schema.index_version import INDEX_VERSION  # noqa: E402

WARMUP = 2

# Worst query shapes for recall (in-process, both sizes).
COMMON_WORDS = (
    "so what did we say about the thing that we were going to do with it and what is the "
    "plan for the next one and how does that work with what they have been doing"
)
CHINESE = "我们之前说过数据库的端口和部署配置是什么？测试服务器的缓存版本还要改吗"


def run(argv: list[str], payload: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=payload, env=env, capture_output=True, check=True, cwd=REPO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed rounds (default 15)")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument(
        "--stores",
        default="distinct,copies",
        help="stores to build and ask, the first is the headline (distinct, copies)",
    )
    parser.add_argument("--cache", type=Path, help="keep the built stores here for later runs")
    parser.add_argument("--quick", action="store_true", help="4 rounds, for a smoke check")
    parser.add_argument(
        "--questions", type=Path, help="a JSON list of the questions to ask (or an object of lists by store)"
    )
    parser.add_argument(
        "--syncs",
        action="store_true",
        help="only the capture hooks' disk syncs and wall time, with and without a worker (bench/capture_syncs.py)",
    )
    parser.add_argument("--database-url", default=None, help="with --syncs: also through the PostgreSQL gateway")
    args = parser.parse_args()
    if args.syncs:
        from bench.capture_syncs import measure

        print(json.dumps(measure(4 if args.quick else args.runs, args.database_url), indent=2))
        return
    runs = 4 if args.quick else args.runs
    sizes = [int(s) for s in args.sizes.split(",")]
    realistic = (distinct_store.EVAL / "locomo-dev.json").exists()
    stores = [s for s in args.stores.split(",") if s] if realistic else ["synthetic"]
    unknown = set(stores) - set(distinct_store.BUILDERS) - {"synthetic"}
    if unknown:
        raise SystemExit(f"unknown store {sorted(unknown)}: choose from {sorted(distinct_store.BUILDERS)}")
    main_store = stores[0]
    now = time.time()
    exe = memevo_exe()
    started_all = time.perf_counter()
    result: dict[str, Any] = {"setup": {"stores": stores, "runs": runs, "index_version": INDEX_VERSION}}
    with tempfile.TemporaryDirectory(prefix="memevo-hooks-bench-") as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache or tmp / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        homes: dict[tuple[str, int], Path] = {}
        for store in stores:
            for size in sizes:
                built, info = built_store(cache, store, size, now)
                homes[store, size] = copy_home(built, tmp / f"home-{store}-{size}")
                result["setup"][f"{store}_{size}"] = info
        questions = chosen_questions(args, stores, homes, sizes, now)
        result["setup"]["questions"] = {store: qs[:4] for store, qs in questions.items()}
        cc = claude_code_setup(tmp)
        cwd = str(tmp / "project")

        def prefix(store: str) -> str:
            return "" if store == main_store else f"{store}_"

        # Each hook: (name, argv, payload for round i, (store, size)).
        hooks: list[tuple[str, list[str], Any, tuple[str, int]]] = []

        def prompt(qs: list[str]) -> Any:
            return lambda i: generic("user_prompt", cwd, prompt=qs[i % len(qs)])

        def cc_prompt(qs: list[str], cc: dict[str, Any]) -> Any:
            return lambda i: json.dumps(
                {**cc["prompt"], "prompt": qs[i % len(qs)], "prompt_id": str(uuid.uuid4())}
            ).encode()

        for store in stores:
            for size in sizes:
                hooks.append(
                    (
                        f"{prefix(store)}user_prompt_{size}",
                        [exe, "hook", "user_prompt"],
                        prompt(questions[store]),
                        (store, size),
                    )
                )
        for size in sizes:
            hooks.append(
                (
                    f"turn_end_remember_{size}",
                    [exe, "hook", "turn_end"],
                    lambda i: generic(
                        "turn_end",
                        cwd,
                        session_id=f"b-{i}",
                        user_messages=[f"remember that release build {i} of the billing service needs node 20"],
                    ),
                    (main_store, size),
                )
            )
        hooks.append(
            (
                "session_start",
                [exe, "hook", "session_start"],
                lambda i: generic("session_start", cwd),
                (main_store, sizes[0]),
            )
        )
        if cc is not None:
            for store in stores:
                for size in sizes:
                    hooks.append(
                        (
                            f"{prefix(store)}cc_user_prompt_submit_{size}",
                            [exe, "hook", "--agent", "claude-code"],
                            cc_prompt(questions[store], cc),
                            (store, size),
                        )
                    )
            for size in sizes:
                hooks.append(
                    (
                        f"cc_stop_new_source_{size}",
                        [exe, "hook", "--agent", "claude-code"],
                        lambda i: json.dumps(cc["stop"]).encode(),
                        (main_store, size),
                    )
                )

        def env_for(where: tuple[str, int] | None) -> dict[str, str]:
            env = bench_env(homes[where or (main_store, sizes[0])], **({"HOME": str(cc["user_home"])} if cc else {}))
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode compiled
            return env

        # Every hook must work before it is timed: a digest where one is expected, nothing on stderr.
        for name, argv, payload, where in hooks:
            done = run(argv, payload(0), env_for(where))
            if done.stderr or (("user_prompt" in name) and not done.stdout.strip()):
                raise SystemExit(f"{name}: stdout {done.stdout[:200]!r} stderr {done.stderr[:300]!r}")

        samples: dict[str, list[float]] = {"bare": [], **{name: [] for name, *_ in hooks}}
        for i in range(runs + WARMUP):
            if cc is not None:  # the turn that just ended, with a statement no earlier run captured
                cc["cc"].write_transcript(
                    cc["transcript"], cc["cc"].with_statement(cc["records"], cc["last_turn"], cc["cc"].statement(i + 1))
                )
            timed = {"bare": time_command([sys.executable, "-c", "import sqlite3"], env=env_for(None))}
            for name, argv, payload, where in hooks:
                timed[name] = time_command(argv, input_bytes=payload(i + 1), env=env_for(where))
            if i >= WARMUP:
                for name, ms in timed.items():
                    samples[name].append(ms)

        bare = statistics.median(samples["bare"])
        result["bare_python_import_sqlite3"] = summary(samples["bare"])
        for name, *_ in hooks:
            entry = summary(samples[name])
            entry["extra_ms"] = round(entry["median_ms"] - bare, 1)
            result[name] = entry
        if len(sizes) == 2:
            for store in stores:
                for hook in ("user_prompt", "cc_user_prompt_submit"):
                    small, large = (result[f"{prefix(store)}{hook}_{s}"]["extra_ms"] for s in sizes)
                    result[f"{prefix(store)}{hook}_extra_ratio_{sizes[1]}_to_{sizes[0]}"] = round(
                        large / max(small, 0.1), 2
                    )

        # The import time of the hook path and the peak memory of each hook process.
        result["imports"] = {
            "bare": import_profile([sys.executable, "-c", "import sqlite3"], b"", env_for(None)),
            **{
                name: import_profile(argv, payload(0), env_for(where))
                for name, argv, payload, where in hooks
                if where == (main_store, sizes[0])
            },
        }
        result["peak_rss_kb"] = {
            "bare": peak_kb([sys.executable, "-c", "import sqlite3"], b"", env_for(None)),
            **{name: peak_kb(argv, payload(0), env_for(where)) for name, argv, payload, where in hooks},
        }

        # Recall alone, in-process, for the worst query shapes at every size of every store.
        result["in_process_work"] = {}
        result["in_process_recall_ms"] = {}
        result["in_process_ratio"] = {}
        for store in stores:
            qs = questions[store]
            long_message = " ".join(qs * (1 + 6000 // max(1, len(" ".join(qs)))))[:6000]
            shapes = {
                "questions": [[q] for q in qs],
                "many_common_words": [[COMMON_WORDS]],
                "long_message": [[long_message]],
                "chinese": [[CHINESE]],
                "conversation_6_turns": [[*qs[:5], qs[5 % len(qs)]]],
            }
            work = {size: in_process(homes[store, size], shapes, now, 3 if args.quick else 10) for size in sizes}
            result["in_process_work"][store] = {
                str(size): {shape: {k: v for k, v in w.items() if k != "median_ms"} for shape, w in work[size].items()}
                for size in sizes
            }
            recall_ms = {size: {shape: w["median_ms"] for shape, w in work[size].items()} for size in sizes}
            result["in_process_recall_ms"][store] = {str(size): recall_ms[size] for size in sizes}
            if len(sizes) == 2:
                small, large = recall_ms[sizes[0]], recall_ms[sizes[1]]
                result["in_process_ratio"][store] = {
                    shape: round(large[shape] / max(small[shape], 0.01), 2) for shape in shapes
                }
    result["machine"] = {"load_avg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    result["bench_s"] = round(time.perf_counter() - started_all, 1)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
