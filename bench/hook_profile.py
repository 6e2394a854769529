"""Where a hook's work goes: rows read per query, instructions per hook process, the costliest
functions. Measures, never changes anything; stores are built by ``bench/distinct_store.py``.

    python bench/hook_profile.py work --cache DIR [--store distinct] [--sizes 10000,100000]
    python bench/hook_profile.py callgrind --cache DIR [--store distinct] [--sizes …] [--out DIR]
    python bench/hook_profile.py cprofile --cache DIR [--store distinct] [--size 100000] [--hook user_prompt]
    python bench/hook_profile.py recall --cache DIR [--store distinct] [--sizes …] [--out DIR]

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
* ``recall``: instructions of automatic recall per question as a hook runs it (a fresh
  connection per question, so SQLite prepares its statements and reads its pages anew),
  with the imports and the module-level caches already warm: callgrind collects only
  inside the loop over the questions (``--toggle-collect=functools_reduce``). A change to
  recall is judged by this count before and after, on the same questions.
* ``cprofile``: one hook process run in process under ``cProfile`` (imports included) and
  its costliest functions by own and by cumulative time.
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import REPO, bench_env, memevo_exe  # noqa: E402
from bench.callgrind_counts import by_library, count, imported, imports_only, inclusive  # noqa: E402
from bench.recall_rows import work  # noqa: E402


def _questions(homes: list[Path], now: float, want: int = 12) -> list[str]:
    """The sets' questions that print a digest at every one of ``homes`` (as ``bench/hooks.py``)."""
    from bench.hook_stores import matching_questions

    return matching_questions(distinct_store.questions(), homes, now, want)


def generic(event: str, cwd: str, **fields: Any) -> bytes:
    return json.dumps(
        {"schema": "memevo.hook/v1", "event": event, "cwd": cwd, "session_id": "bench-profile", **fields}
    ).encode()


def hook_cases(
    cache: Path, store: str, sizes: list[int], tmp: Path, questions: int = 1
) -> list[tuple[str, list[str], bytes, Path, dict[str, str]]]:
    """(name, argv, payload, state dir, extra env) of each hook process to count; the prompt
    hooks once per question (``name#k``)."""
    from bench.hook_payloads import claude_code_setup
    from bench.hook_stores import copy_home

    cases: list[tuple[str, list[str], bytes, Path, dict[str, str]]] = []
    homes = {}
    for size in sizes:
        built, _, now = distinct_store.built_home(cache, store, size)
        homes[size] = copy_home(built, tmp / f"home-{size}")
    asked = _questions(list(homes.values()), time.time(), questions)
    cwd = str(tmp / "project")
    for size in sizes:
        for k, q in enumerate(asked):
            payload = generic("user_prompt", cwd, prompt=q)
            cases.append((f"user_prompt_{size}#{k}", ["hook", "user_prompt"], payload, homes[size], {}))
    remember = generic(
        "turn_end", cwd, user_messages=["remember that release build 7 of the billing service needs node 20"]
    )
    for size in sizes:
        cases.append((f"turn_end_remember_{size}", ["hook", "turn_end"], remember, homes[size], {}))
    cc = claude_code_setup(tmp)
    if cc is not None:
        env = {"HOME": str(cc["user_home"])}
        for size in sizes:
            for k, q in enumerate(asked):
                body = {**cc["prompt"], "prompt": q, "prompt_id": f"5e55b3c4-0000-4000-8000-00000000000{k}"}
                cases.append(
                    (
                        f"cc_user_prompt_submit_{size}#{k}",
                        ["hook", "--agent", "claude-code"],
                        json.dumps(body).encode(),
                        homes[size],
                        env,
                    )
                )
        stop = json.dumps(cc["stop"]).encode()
        for size in sizes:
            cases.append((f"cc_stop_{size}", ["hook", "--agent", "claude-code"], stop, homes[size], env))
    return cases


def callgrind(args: argparse.Namespace) -> dict[str, Any]:
    """Instructions of each hook process, of a process importing what it imports (``imports``),
    and by library (``by_library``: SQLite's share); prompt hooks: the median over questions."""
    from bench.hook_stores import copy_home

    out_dir: Path = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {}
    bare_argv = [sys.executable, "-c", "import sqlite3"]
    with tempfile.TemporaryDirectory(prefix="memevo-profile-") as tmp_name:
        tmp = Path(tmp_name)
        cases = hook_cases(args.cache, args.store, args.sizes, tmp, args.questions)
        if args.only:
            cases = [c for c in cases if c[0].startswith(tuple(args.only.split(",")))]
        env0 = bench_env(cases[0][3], PYTHONHASHSEED="0")
        env0.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(bare_argv, env=env0, capture_output=True)
        bare, _ = count(bare_argv, b"", env0, out_dir / "callgrind.out.bare")
        result["bare"] = round(bare, 1)
        counts: dict[str, list[float]] = {}
        for name, argv, payload, home, extra in cases:
            env = bench_env(home, PYTHONHASHSEED="0", **extra)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            argv = [memevo_exe(), *argv]
            # Bytecode, the compiled-pattern cache and the page cache, on a copy (a capture
            # counted must be a new one), twice: a first run in a fresh tree can leave
            # patterns for the second to add to the cache, which costs it about 30M.
            warm = copy_home(home, tmp / f"warm-{name}")
            for _ in range(2):
                subprocess.run(
                    argv, input=payload, env={**env, "MEMEVO_HOME": str(warm)}, capture_output=True, cwd=REPO
                )
            target = out_dir / f"callgrind.out.{name.replace('#', '.')}"
            total, stdout = count(argv, payload, env, target)
            hook = name.split("#")[0]
            counts.setdefault(hook, []).append(total)
            entry = result.setdefault(hook, {"per_question_m": [], "printed": []})
            entry["per_question_m"].append(round(total, 1))
            entry["printed"].append(bool(stdout.strip()))
            if name.endswith("#0") or "#" not in name:
                entry["by_library_m"] = by_library(target)
                entry["sqlite_step_prepare_m"] = inclusive(target)
                if args.imports:
                    modules = imported(argv, payload, {**env, "MEMEVO_HOME": str(tmp / f"warm-{name}")})
                    script = imports_only(argv[2:], modules)
                    only, _ = count([sys.executable, "-c", script], b"", env, out_dir / f"callgrind.out.imports.{hook}")
                    entry["imports_only_m"] = round(only, 1)
                    entry["imports_over_bare_m"] = round(only - bare, 1)
        for hook, totals in counts.items():
            result[hook]["median_m"] = round(statistics.median(totals), 1)
            result[hook]["over_bare_m"] = round(statistics.median(totals) - bare, 1)
            if "imports_only_m" in result[hook]:
                result[hook]["work_m"] = round(statistics.median(totals) - result[hook]["imports_only_m"], 1)
    return result


def cprofile(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="memevo-profile-") as tmp_name:
        tmp = Path(tmp_name)
        cases = {c[0]: c for c in hook_cases(args.cache, args.store, [args.size], tmp)}
        key = next(name for name in cases if name.startswith(args.hook))
        name, argv, payload, home, extra = cases[key]
        # As the console script runs it (cli.main.main: the regex cache, deferred modules),
        # the collector off, profiled from the first import to the printed result.
        script = (
            "import cProfile, gc, io, pstats, sys\n"
            "gc.disable()\n"
            "sys.argv = ['memevo', *sys.argv[1:]]\n"
            "profile = cProfile.Profile()\n"
            "real, sys.stdout = sys.stdout, io.StringIO()\n"
            "profile.enable()\n"
            "try:\n"
            "    from cli.main import main\n"
            "    main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "profile.disable()\n"
            "sys.stdout = real\n"
            "stats = pstats.Stats(profile, stream=real)\n"
            "stats.sort_stats('tottime').print_stats(30)\n"
            "stats.sort_stats('cumulative').print_stats(60)\n"
        )
        env = bench_env(home, PYTHONHASHSEED="0", **extra)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        from bench.hook_stores import copy_home

        warm = {**env, "MEMEVO_HOME": str(copy_home(home, tmp / "warm"))}  # a capture profiled is a new one
        subprocess.run([sys.executable, "-c", script, *argv], input=payload, env=warm, cwd=REPO, capture_output=True)
        done = subprocess.run(
            [sys.executable, "-c", script, *argv], input=payload, env=env, cwd=REPO, capture_output=True
        )
        print(f"# {name}")
        print(done.stdout.decode(errors="replace"))


_RECALL_LOOP = """
import functools, json, sys
from pathlib import Path
from memory_core.recall.service import turn_recall
from memory_core.store.engines.database import Store

home, now, questions = Path(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
with Store.open_readonly(home) as store:  # imports and lazy imports, on a throwaway connection
    turn_recall(store.conn, [questions[0]], now=now, session_is_fresh=True)


def one(printed, question):
    with Store.open_readonly(home) as store:
        return printed + bool(turn_recall(store.conn, [question], now=now, session_is_fresh=True).digest)


print(functools.reduce(one, questions, 0))
"""


def recall_instructions(args: argparse.Namespace) -> dict[str, Any]:
    """Instructions per question of :func:`turn_recall` at each size, on the questions
    ``bench/hooks.py`` asks (those that print a digest at every size)."""
    built = {size: distinct_store.built_home(args.cache, args.store, size) for size in args.sizes}
    questions = _questions([home for home, _, _ in built.values()], built[args.sizes[0]][2])
    out_dir: Path = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"questions": len(questions)}
    for size, (home, _, built_at) in built.items():
        env = bench_env(home, PYTHONHASHSEED="0")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        argv = [sys.executable, "-c", _RECALL_LOOP, str(home), str(built_at), json.dumps(questions)]
        subprocess.run(argv, env=env, capture_output=True, cwd=REPO, check=True)  # bytecode
        target = out_dir / f"callgrind.out.recall.{args.store}.{size}"
        total, printed = count(argv, b"", env, target, "--collect-atstart=no", "--toggle-collect=functools_reduce")
        result[str(size)] = {"per_question_m": round(total / len(questions), 1), "printed": int(printed.strip() or 0)}
    if len(args.sizes) == 2:
        small, large = (result[str(s)]["per_question_m"] for s in args.sizes)
        result["ratio"] = round(large / small, 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("work", "callgrind", "cprofile", "recall"))
    parser.add_argument("--cache", type=Path, required=True, help="the stores' cache (bench/hooks.py --cache)")
    parser.add_argument("--store", default="distinct", choices=sorted(distinct_store.BUILDERS))
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 100_000])
    parser.add_argument("--size", type=int, default=100_000, help="cprofile: the store size")
    parser.add_argument("--hook", default="user_prompt", help="cprofile: the hook (a name prefix)")
    parser.add_argument("--questions", type=int, default=3, help="callgrind: questions per prompt hook (median)")
    parser.add_argument(
        "--imports", action="store_true", help="callgrind: also count a process importing what each hook imports"
    )
    parser.add_argument(
        "--only", default="", help="callgrind: only the hooks whose names start with one of these (comma-separated)"
    )
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "memevo-callgrind")
    args = parser.parse_args()
    if args.mode == "cprofile":
        cprofile(args)
        return
    if args.mode == "callgrind":
        result = callgrind(args)
    elif args.mode == "recall":
        result = recall_instructions(args)
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
