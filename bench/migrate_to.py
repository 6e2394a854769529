"""`memevo migrate-to`: the time of the whole command and the store's size on PostgreSQL, at
10k and 100k claims.

    python bench/migrate_to.py [--sizes 10000,100000] [--url postgresql://USER@HOST:PORT/DB]

The SQLite store is built as bench/recall_speed.py builds it (synthetic claims over a Zipf
vocabulary, with their recall index and shared bodies), plus one captured source per four
claims. Each size is migrated with the real console script into a fresh schema of the
database ``--url`` names (default ``MEMEVO_TEST_DATABASE_URL``), which is dropped afterwards.
Reported: the command's wall time, its own split (copy with verification, VACUUM ANALYZE),
rows, memory.db's size and the PostgreSQL size (pg_total_relation_size over the tables).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env, memevo_exe  # noqa: E402
from bench.recall_speed import Corpus, build  # noqa: E402
from memory_core.capture.intake import capture_source  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from tests.support.pg_cluster import drop_schema, fresh_schema_url  # noqa: E402

NOW = 1_760_000_000.0


def add_sources(home: Path, corpus: Corpus, count: int) -> None:
    store = Store.open(home)
    try:
        for start in range(0, count, 2_000):
            with store.transaction() as conn:
                for n in range(start, min(count, start + 2_000)):
                    capture_source(
                        conn,
                        source_type="user_statement",
                        origin=f"/work/project-{n % 20}",
                        text=corpus.sentence(n),
                        now=NOW - n,
                        session_id=f"session-{n // 50}",
                    )
    finally:
        store.close()


def run(size: int, base_url: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="memevo-bench-migrate-") as tmp:
        home = Path(tmp) / "home"
        corpus = Corpus()
        started = time.perf_counter()
        build(home, corpus, size, NOW)
        add_sources(home, corpus, size // 4)
        built = time.perf_counter() - started
        url, schema = fresh_schema_url(base_url)
        try:
            env = bench_env(home)
            env.pop("MEMEVO_DATABASE_URL", None)
            env.pop("MEMEVO_QUEUE_URL", None)
            started = time.perf_counter()
            done = subprocess.run(
                [memevo_exe(), "migrate-to", url, "--json"],
                env=env,
                cwd=REPO,
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"migrate-to failed at {size} claims: {done.stderr.strip()}")
            report = json.loads(done.stdout)
        finally:
            drop_schema(base_url, schema)
        return {
            "claims": size,
            "rows": report["rows"],
            "build_s": round(built, 1),
            "migrate_to_s": round(wall, 2),
            "copy_and_verify_s": report["seconds"],
            "vacuum_analyze_s": report["vacuum_seconds"],
            "sqlite_mib": round((home / "memory.db").stat().st_size / 1_048_576, 1),
            "postgresql_mib": round(report["size_bytes"] / 1_048_576, 1),
            "rows_per_s": round(report["rows"] / wall),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--url", default=os.environ.get("MEMEVO_TEST_DATABASE_URL", ""))
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("give --url postgresql://USER@HOST:PORT/DB (or set MEMEVO_TEST_DATABASE_URL)")
    for size in (int(s) for s in args.sizes.split(",")):
        print(json.dumps(run(size, args.url)), flush=True)


if __name__ == "__main__":
    main()
