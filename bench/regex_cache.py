"""The per-turn hook under ``PYTHONDONTWRITEBYTECODE=1``, with and without the compiled-pattern
cache, beside the hook where bytecode is written and a bare ``python -c 'import sqlite3'``.

    python bench/regex_cache.py [--runs 15]

Many container images set ``PYTHONDONTWRITEBYTECODE=1``. The hook's regular-expression
programs (``cli/regex_cache.py``) are then kept in the state dir's ``cache/`` instead of
beside the package's bytecode. Four configurations, interleaved round by round so load on
the machine hits all alike (medians after two warm-up rounds), each a whole
``memevo hook user_prompt`` process printing a digest from a 200-claim store:

* ``bytecode_written``: the cache beside the package's bytecode (the usual case);
* ``dont_write_state_cache``: ``PYTHONDONTWRITEBYTECODE=1``, the cache in the state dir;
* ``dont_write_no_cache``: ``PYTHONDONTWRITEBYTECODE=1`` with a state dir whose ``cache``
  is a plain file, so no cache can be read or written: every start compiles every pattern,
  as every start did under ``PYTHONDONTWRITEBYTECODE=1`` before the state-dir cache.

The package's own bytecode is compiled beforehand in every case (an installed package has
it), so only the patterns differ. The store size does not matter here: what is measured is
the start of the process (docs/hooks.md, "Cost"; in-process recall is ``bench/hooks.py``).
"""

from __future__ import annotations

import argparse
import compileall
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env, memevo_exe, summary, time_command  # noqa: E402
from memory_core.ids import content_hash, memory_id  # noqa: E402
from memory_core.records import Evidence, Memory  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from memory_core.store.tables.memories import put_memory  # noqa: E402

WARMUP = 2
QUESTION = "which port does service 17 listen on?"


def build_store(home: Path, now: float) -> None:
    """200 claims in 7 projects, written through the real store."""
    with Store.open(home) as store, store.transaction() as conn:
        for n in range(200):
            text = f"Service {n} listens on port {6000 + n} in staging"
            origin = f"/work/project-{n % 7}"
            at = now - 3600
            put_memory(
                conn,
                Memory(
                    id=memory_id(origin, "fact", text),
                    origin=origin,
                    kind="fact",
                    content=text,
                    content_hash=content_hash(text),
                    created_at=at,
                    updated_at=at,
                    source_id=f"{n:024x}",
                    evidence=Evidence(basis="summary", method="model", source_id=f"{n:024x}", at=at),
                ),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed rounds (default 15)")
    args = parser.parse_args()
    compileall.compile_dir(str(REPO / "cli"), quiet=1)
    compileall.compile_dir(str(REPO / "memory_core"), quiet=1)
    exe = memevo_exe()
    payload = json.dumps(
        {
            "schema": "memevo.hook/v1",
            "agent": "bench",
            "event": "user_prompt",
            "session_id": "bench",
            "cwd": "/tmp",
            "prompt": QUESTION,
        }
    ).encode()
    with tempfile.TemporaryDirectory(prefix="memevo-regex-cache-bench-") as tmp_name:
        tmp = Path(tmp_name)
        built = tmp / "built"
        build_store(built, time.time())
        homes = {name: tmp / name for name in ("bytecode_written", "dont_write_state_cache", "dont_write_no_cache")}
        for home in homes.values():
            shutil.copytree(built, home)
        (homes["dont_write_no_cache"] / "cache").write_text("not a directory\n")

        def env_for(name: str) -> dict[str, str]:
            env = bench_env(homes[name])
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            if name != "bytecode_written":
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            return env

        for name in homes:  # each works, and fills its cache
            done = subprocess.run(
                [exe, "hook", "user_prompt"], input=payload, env=env_for(name), capture_output=True, cwd=REPO
            )
            if done.returncode or done.stderr or b"6017" not in done.stdout:
                raise SystemExit(f"{name}: {done.stdout[:200]!r} {done.stderr[:300]!r}")
        samples: dict[str, list[float]] = {"bare": [], **{name: [] for name in homes}}
        for i in range(args.runs + WARMUP):
            timed = {"bare": time_command([sys.executable, "-c", "import sqlite3"], env=env_for("bytecode_written"))}
            for name in homes:
                timed[name] = time_command([exe, "hook", "user_prompt"], input_bytes=payload, env=env_for(name))
            if i >= WARMUP:
                for name, ms in timed.items():
                    samples[name].append(ms)
        bare = statistics.median(samples["bare"])
        result: dict[str, object] = {"runs": args.runs, "bare_python_import_sqlite3": summary(samples["bare"])}
        for name in homes:
            entry = summary(samples[name])
            entry["extra_ms"] = round(entry["median_ms"] - bare, 1)
            result[name] = entry
        result["state_cache_files"] = sorted(p.name for p in (homes["dont_write_state_cache"] / "cache").iterdir())
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
