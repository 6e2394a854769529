"""Where a hook's work goes: rows read per query, instructions per hook process, the costliest
functions. Measures, never changes anything; stores are built by ``bench/distinct_store.py``.

    python bench/hook_profile.py work --cache DIR [--store distinct] [--sizes 10000,100000]
    python bench/hook_profile.py callgrind --cache DIR [--store distinct] [--sizes …] [--out DIR]
    python bench/hook_profile.py cprofile --cache DIR [--store distinct] [--size 100000] [--hook user_prompt]

* ``work``: automatic recall in process over each store's questions (as ``bench/hooks.py``
  chooses them), per query: the rows each SQL statement of recall returned, grouped by the
  function that ran it and the table it read (postings, bodies, claims' index entries), the
  candidates matched and scored, and the milliseconds.
* ``callgrind``: instructions (``valgrind --tool=callgrind``, ``PYTHONHASHSEED=0``) of one
  whole process of bare ``python -c 'import sqlite3'``, the generic ``user_prompt`` (a
  question that prints a digest) at each size, ``turn_end`` with a "remember that …"
  statement and Claude Code's ``UserPromptSubmit`` and ``Stop`` with the 200-record
  transcript of ``bench/claude_code_hooks.py``; the ``callgrind.out`` files stay in
  ``--out`` for ``callgrind_annotate``, which also gives the inclusive share of SQLite
  (``sqlite3_step``), compiling and unmarshalling code (imports) and the evaluation loop.
* ``cprofile``: one hook process run in process under ``cProfile`` (imports included) and
  its costliest functions by own and by cumulative time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import REPO, bench_env, memevo_exe  # noqa: E402

_TABLE = re.compile(r"\bFROM\s+(\w+)", re.IGNORECASE)


class CountingCursor:
    def __init__(self, cursor: Any, key: tuple[str, str], rows: Counter[tuple[str, str]]) -> None:
        self.cursor, self.key, self.rows = cursor, key, rows

    def __iter__(self) -> Any:
        for row in self.cursor:
            self.rows[self.key] += 1
            yield row

    def fetchall(self) -> list[Any]:
        out = self.cursor.fetchall()
        self.rows[self.key] += len(out)
        return out

    def fetchone(self) -> Any:
        row = self.cursor.fetchone()
        self.rows[self.key] += row is not None
        return row

    def fetchmany(self, size: int = 1) -> list[Any]:
        out = self.cursor.fetchmany(size)
        self.rows[self.key] += len(out)
        return out


class CountingConnection:
    """A connection that counts the rows each (calling function, table) statement returned."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.rows: Counter[tuple[str, str]] = Counter()
        self.statements: Counter[tuple[str, str]] = Counter()

    def execute(self, sql: str, params: Any = ()) -> CountingCursor:
        caller = sys._getframe(1).f_code.co_name
        match = _TABLE.search(sql)
        key = (caller, match.group(1) if match else "?")
        self.statements[key] += 1
        return CountingCursor(self.conn.execute(sql, params), key, self.rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def work(home: Path, questions: list[str], now: float) -> dict[str, Any]:
    """Per query, averaged over ``questions``: rows by (function, table), candidates, time."""
    from memory_core.recall.service import turn_recall
    from memory_core.store.database import Store

    rows: Counter[tuple[str, str]] = Counter()
    statements: Counter[tuple[str, str]] = Counter()
    matched, scored, ms = [], [], []
    with Store.open_readonly(home) as store:
        for q in questions:
            turn_recall(store.conn, [q], now=now, session_is_fresh=True)  # warm the page cache
            counting = CountingConnection(store.conn)
            result = turn_recall(counting, [q], now=now, session_is_fresh=True)  # type: ignore[arg-type]
            rows.update(counting.rows)
            statements.update(counting.statements)
            lifecycle = result.diagnostics["lifecycle"]
            matched.append(lifecycle["matched"])
            scored.append(lifecycle["scored"])
            started = time.perf_counter()
            turn_recall(store.conn, [q], now=now, session_is_fresh=True)
            ms.append((time.perf_counter() - started) * 1000)
    n = len(questions)
    return {
        "queries": n,
        "median_ms": round(statistics.median(ms), 2),
        "matched_mean": round(statistics.fmean(matched)),
        "matched_max": max(matched),
        "scored_mean": round(statistics.fmean(scored)),
        "scored_max": max(scored),
        "rows_per_query": {f"{fn} {table}": round(c / n) for (fn, table), c in rows.most_common()},
        "statements_per_query": {f"{fn} {table}": round(c / n, 1) for (fn, table), c in statements.most_common(12)},
    }


def _questions(homes: list[Path], now: float, want: int = 12) -> list[str]:
    """The sets' questions that print a digest at every one of ``homes`` (as ``bench/hooks.py``)."""
    from bench.hooks import matching_questions

    return matching_questions(distinct_store.questions(), homes, now, want)


def generic(event: str, cwd: str, **fields: Any) -> bytes:
    return json.dumps(
        {"schema": "memevo.hook/v1", "event": event, "cwd": cwd, "session_id": "bench-profile", **fields}
    ).encode()


def hook_cases(
    cache: Path, store: str, sizes: list[int], tmp: Path
) -> list[tuple[str, list[str], bytes, Path, dict[str, str]]]:
    """(name, argv, payload, state dir, extra env) of each hook process to count."""
    from bench.hooks import claude_code_setup, copy_home

    cases: list[tuple[str, list[str], bytes, Path, dict[str, str]]] = []
    homes = {}
    for size in sizes:
        built, _, now = distinct_store.built_home(cache, store, size)
        homes[size] = copy_home(built, tmp / f"home-{size}")
    first = _questions(list(homes.values()), time.time(), 1)[0]
    cwd = str(tmp / "project")
    for size in sizes:
        cases.append(
            (f"user_prompt_{size}", ["hook", "user_prompt"], generic("user_prompt", cwd, prompt=first), homes[size], {})
        )
    remember = generic(
        "turn_end", cwd, user_messages=["remember that release build 7 of the billing service needs node 20"]
    )
    cases.append(("turn_end_remember", ["hook", "turn_end"], remember, homes[sizes[0]], {}))
    cc = claude_code_setup(tmp)
    if cc is not None:
        env = {"HOME": str(cc["user_home"])}
        for size in sizes:
            payload = json.dumps({**cc["prompt"], "prompt": first, "prompt_id": "5e55b3c4-0000-4000-8000-000000000001"})
            cases.append(
                (
                    f"cc_user_prompt_submit_{size}",
                    ["hook", "--agent", "claude-code"],
                    payload.encode(),
                    homes[size],
                    env,
                )
            )
        cases.append(
            ("cc_stop", ["hook", "--agent", "claude-code"], json.dumps(cc["stop"]).encode(), homes[sizes[0]], env)
        )
    return cases


def callgrind(args: argparse.Namespace) -> dict[str, Any]:
    out_dir: Path = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="memevo-profile-") as tmp_name:
        tmp = Path(tmp_name)
        from bench.hooks import copy_home

        cases = hook_cases(args.cache, args.store, args.sizes, tmp)
        runs: list[tuple[str, list[str], bytes, Path, dict[str, str]]] = [
            ("bare", [sys.executable, "-c", "import sqlite3"], b"", cases[0][3], {})
        ]
        runs += [(name, [memevo_exe(), *argv], payload, home, extra) for name, argv, payload, home, extra in cases]
        for name, argv, payload, home, extra in runs:
            env = bench_env(home, PYTHONHASHSEED="0", **extra)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            # Bytecode and page cache, on a copy: a capture counted must be a new one.
            warm = copy_home(home, tmp / f"warm-{name}")
            subprocess.run(argv, input=payload, env={**env, "MEMEVO_HOME": str(warm)}, capture_output=True, cwd=REPO)
            target = out_dir / f"callgrind.out.{name}"
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={target}", *argv],
                input=payload,
                env=env,
                capture_output=True,
                cwd=REPO,
            )
            total = re.search(r"Collected : (\d+)", done.stderr.decode(errors="replace"))
            result[name] = {"instructions_m": round(int(total.group(1)) / 1e6, 1) if total else None}
            if name != "bare" and total:
                result[name]["over_bare_m"] = round(
                    result[name]["instructions_m"] - result["bare"]["instructions_m"], 1
                )
                result[name]["inclusive_m"] = inclusive(target)
    return result


# C functions whose inclusive instructions say where a hook's go: SQLite's statements and
# their preparation, imports, unmarshalling bytecode, regular expressions, module bodies.
_INCLUSIVE = (
    "sqlite3_step",
    "sqlite3_prepare_v2",
    "PyImport_ImportModuleLevelObject",
    "PyMarshal_ReadObjectFromString",
    "sre_match",
    "sre_search",
    "builtin_exec",
)


def inclusive(target: Path) -> dict[str, float]:
    """Inclusive instructions of a few C functions that name where the time goes."""
    done = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(target)], capture_output=True, text=True
    )
    out: dict[str, float] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*:(\w+)", line)
        if match and match.group(2) in _INCLUSIVE:
            out.setdefault(match.group(2), round(int(match.group(1).replace(",", "")) / 1e6, 1))
    return out


def cprofile(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="memevo-profile-") as tmp_name:
        tmp = Path(tmp_name)
        cases = {c[0]: c for c in hook_cases(args.cache, args.store, [args.size], tmp)}
        key = next(name for name in cases if name.startswith(args.hook))
        name, argv, payload, home, extra = cases[key]
        script = (
            "import cProfile, pstats, sys, io\n"
            "sys.argv = ['memevo', *sys.argv[1:]]\n"
            "profile = cProfile.Profile()\n"
            "out = io.StringIO()\n"
            "real = sys.stdout\n"
            "sys.stdout = out\n"
            "profile.enable()\n"
            "from cli.hooks.entry import main\n"
            "main(sys.argv[2:])\n"
            "profile.disable()\n"
            "sys.stdout = real\n"
            "stats = pstats.Stats(profile, stream=real)\n"
            "stats.sort_stats('tottime').print_stats(25)\n"
            "stats.sort_stats('cumulative').print_stats(40)\n"
        )
        env = bench_env(home, PYTHONHASHSEED="0", **extra)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", script, *argv], input=payload, env=env, cwd=REPO)  # warm
        done = subprocess.run(
            [sys.executable, "-c", script, *argv], input=payload, env=env, cwd=REPO, capture_output=True
        )
        print(f"# {name}")
        print(done.stdout.decode(errors="replace"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("work", "callgrind", "cprofile"))
    parser.add_argument("--cache", type=Path, required=True, help="the stores' cache (bench/hooks.py --cache)")
    parser.add_argument("--store", default="distinct", choices=sorted(distinct_store.BUILDERS))
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 100_000])
    parser.add_argument("--size", type=int, default=100_000, help="cprofile: the store size")
    parser.add_argument("--hook", default="user_prompt", help="cprofile: the hook (a name prefix)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "memevo-callgrind")
    args = parser.parse_args()
    if args.mode == "cprofile":
        cprofile(args)
        return
    if args.mode == "callgrind":
        result = callgrind(args)
    else:
        built = {size: distinct_store.built_home(args.cache, args.store, size) for size in args.sizes}
        questions = _questions([home for home, _, _ in built.values()], built[args.sizes[0]][2])
        result = {"questions": questions}
        for size, (home, _, built_at) in built.items():
            result[str(size)] = work(home, questions, built_at)
    result["machine"] = {"load_avg": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
