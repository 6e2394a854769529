"""The per-turn ``user_prompt`` hook on PostgreSQL through the gateway against the SQLite hook
on the same claims, and the same hook with the gateway down, in one interleaved run.

    python bench/gateway_hooks.py --database-url postgresql://USER@HOST/DB [--sizes 10000,100000]
                                  [--runs 15] [--cache DIR] [--questions 5]

The claims are ``bench/hooks.py``'s (LoCoMo observations repeated to size, else its synthetic
corpus), built once into a SQLite state dir (``--cache`` keeps them), then copied into a fresh
schema of ``--database-url`` (``memory_core.store.engines.copying``), dropped at the end. A second
state dir names that schema in its ``config.toml``, and ``memevo serve --port 0`` runs on it:
the gateway. Each round runs, for every size: the SQLite hook, the hook through the gateway,
the hook with no gateway (no ``gateway`` file: a stopped ``memevo serve``), and the hook whose
gateway accepts the connection and never answers; a bare ``python -c pass`` first. The digests
of the SQLite and the gateway hook are compared byte for byte before anything is timed.
Medians after two discarded warm-up rounds; the target is gateway / SQLite <= 1.3, and under
1 s for a gateway that is down.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, memevo_exe, summary, time_command  # noqa: E402
from bench.hook_payloads import generic  # noqa: E402
from bench.hook_stores import built_home, locomo, matching_questions  # noqa: E402

WARMUP = 2
_LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)/")


def hook_env(home: Path) -> dict[str, str]:
    """The bench's environment without memevo settings, ``MEMEVO_HOME=home``: the store is
    whatever the state dir's config.toml names (SQLite without one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env["MEMEVO_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO)
    return env


def pg_home_for(sqlite_home: Path, into: Path, base_url: str, schema: str) -> tuple[Path, float]:
    """A state dir whose config.toml names a new ``schema`` holding a copy of ``sqlite_home``'s store."""
    import psycopg

    from memory_core.store.engines.copying import copy_rows
    from memory_core.store.engines.database import Store

    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in base_url else "?"
    url = f"{base_url}{separator}options={quote(f'-csearch_path={schema}')}"
    into.mkdir(parents=True, mode=0o700)
    (into / "config.toml").write_text(f"database_url = {json.dumps(url)}\n", encoding="utf-8")
    started = time.perf_counter()
    with Store.open(into) as target, Store.open_readonly(sqlite_home) as source:
        with target.transaction() as conn:
            copy_rows(source.conn, conn)
    return into, time.perf_counter() - started


def drop_schema(base_url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def start_serve(home: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [memevo_exe(), "serve", "--port", "0"],
            env=hook_env(home),
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if _LISTENING.search(log.read_bytes()):
            return process
        time.sleep(0.05)
    raise SystemExit(f"memevo serve did not start: {log.read_text(errors='replace')}")


def hook(home: Path, question: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [memevo_exe(), "hook", "user_prompt"],
        input=generic("user_prompt", "/work/project-0", prompt=question),
        env=hook_env(home),
        capture_output=True,
        check=True,
        cwd=REPO,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("MEMEVO_TEST_DATABASE_URL", ""),
        help="a PostgreSQL database the bench may add a schema to (default $MEMEVO_TEST_DATABASE_URL)",
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--cache", type=Path, default=None, help="keep the built SQLite stores here")
    args = parser.parse_args()
    if not args.database_url:
        raise SystemExit("name a PostgreSQL database: --database-url postgresql://USER@HOST/DB")
    sizes = [int(s) for s in args.sizes.split(",")]
    realistic = locomo()
    now = time.time()
    tmp = Path(tempfile.mkdtemp(prefix="memevo-bench-gateway-"))
    cache = args.cache or tmp / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    schemas: list[str] = []
    servers: list[subprocess.Popen[bytes]] = []
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    try:
        setups = {}
        for size in sizes:
            sqlite_home, built = built_home(cache, size, now, realistic)
            schema = f"bench_gw_{size}_{os.urandom(3).hex()}"
            schemas.append(schema)
            pg_home, copied = pg_home_for(sqlite_home, tmp / f"pg-{size}", args.database_url, schema)
            servers.append(start_serve(pg_home, tmp / f"serve-{size}.log"))
            # The same store with its gateway stopped, and with one that never answers.
            down = tmp / f"down-{size}"
            down.mkdir(mode=0o700)
            shutil.copy(pg_home / "config.toml", down / "config.toml")
            hung = tmp / f"hung-{size}"
            hung.mkdir(mode=0o700)
            shutil.copy(pg_home / "config.toml", hung / "config.toml")
            (hung / "hook-token").write_text("h" * 64 + "\n")
            (hung / "gateway").write_text(f"{silent.getsockname()[1]} {os.getpid()}\n")
            pool = realistic[1] if realistic else ["which port does the staging database use?"]
            questions = matching_questions(pool, sqlite_home, now, args.questions)
            for q in questions:  # byte for byte, before timing
                on_sqlite, on_pg = hook(sqlite_home, q), hook(pg_home, q)
                assert on_sqlite.stdout and on_sqlite.stdout == on_pg.stdout, (q, on_sqlite.stdout, on_pg.stdout)
                assert on_pg.stderr == b"", on_pg.stderr
                down_run = hook(down, q)
                assert down_run.stdout == b"" and down_run.stderr == b""
            setups[size] = {
                "homes": {"sqlite": sqlite_home, "gateway": pg_home, "gateway_down": down, "gateway_silent": hung},
                "questions": questions,
                "build_s": round(built, 1),
                "copy_to_pg_s": round(copied, 1),
            }
            print(
                f"{size}: built {built:.1f} s, copied to PostgreSQL {copied:.1f} s, {len(questions)} questions",
                file=sys.stderr,
            )

        samples: dict[str, list[float]] = {"bare": []}
        for size in sizes:
            for kind in ("sqlite", "gateway", "gateway_down", "gateway_silent"):
                samples[f"{kind}@{size}"] = []
        for round_no in range(WARMUP + args.runs):
            keep = round_no >= WARMUP
            t = time_command([sys.executable, "-c", "pass"])
            if keep:
                samples["bare"].append(t)
            for size in sizes:
                setup = setups[size]
                q = setup["questions"][round_no % len(setup["questions"])]
                payload = generic("user_prompt", "/work/project-0", prompt=q)
                for kind, home in setup["homes"].items():
                    t = time_command([memevo_exe(), "hook", "user_prompt"], input_bytes=payload, env=hook_env(home))
                    if keep:
                        samples[f"{kind}@{size}"].append(t)
        report: dict[str, object] = {"runs": args.runs, "corpus": "locomo" if realistic else "synthetic"}
        report["timings"] = {name: summary(values) for name, values in samples.items()}
        ratios = {}
        for size in sizes:
            sqlite_median = statistics.median(samples[f"sqlite@{size}"])
            ratios[f"gateway/sqlite@{size}"] = round(statistics.median(samples[f"gateway@{size}"]) / sqlite_median, 2)
        report["ratios"] = ratios
        report["setup"] = {
            size: {k: v for k, v in setup.items() if k not in ("homes", "questions")} for size, setup in setups.items()
        }
        print(json.dumps(report, indent=2))
    finally:
        silent.close()
        for process in servers:
            if process.poll() is None:
                os.killpg(process.pid, 15)
                process.wait(timeout=10)
        for schema in schemas:
            drop_schema(args.database_url, schema)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
