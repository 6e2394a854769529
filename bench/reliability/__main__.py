"""Run the whole reliability suite with bench-sized numbers and print every figure.

    python -m bench.reliability [--only chaos,concurrency,hook_fuzz,model_replies,planted_secrets,...]
        [--kills 20] [--consolidations 120] [--producers 8] [--captures 250] [--consumers 2]
        [--fuzz-examples 2000] [--random] [--database-url postgresql://USER@HOST/DB]

Without ``--database-url`` every check runs on SQLite (``memory.db`` in a temporary state
dir) and the PostgreSQL-only checks (``pg_faults``, ``gateway_chaos``, ``pg_drops``) are
skipped; with it, every check runs on PostgreSQL, in fresh schemas of that database (created
and dropped here: use a throwaway database). The CI-sized run is `pytest tests/reliability` (5 kills over 30
consolidations, 4 producers x 25 captures, two consumers, 400 fuzz examples, on both
backends).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.reliability import (  # noqa: E402
    chaos,
    concurrency,
    everyday,
    gateway_chaos,
    hook_fuzz,
    model_replies,
    pg_drops,
    pg_faults,
    planted_secrets,
)
from bench.reliability.harness import print_figures  # noqa: E402

CHECKS = (
    "chaos",
    "concurrency",
    "everyday",
    "hook_fuzz",
    "model_replies",
    "planted_secrets",
    "pg_faults",
    "gateway_chaos",
    "pg_drops",
)
POSTGRES_ONLY = ("pg_faults", "gateway_chaos", "pg_drops")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(CHECKS))
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--consolidations", type=int, default=120)
    parser.add_argument("--producers", type=int, default=8)
    parser.add_argument("--captures", type=int, default=250)
    parser.add_argument("--consumers", type=int, default=2, help="consumers (machines) sharing the queue")
    parser.add_argument("--everyday-seconds", type=float, default=150.0, help="everyday: seconds of load")
    parser.add_argument("--model-delay", type=float, default=6.0, help="everyday: the model's seconds per answer")
    parser.add_argument("--fuzz-examples", type=int, default=2_000)
    parser.add_argument("--random", action="store_true", help="fresh random fuzz examples")
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in fresh schemas of this database")
    args = parser.parse_args()
    url = args.database_url
    results: dict[str, object] = {"backend": "postgresql" if url else "sqlite"}
    started = time.monotonic()
    for name in [n for n in args.only.split(",") if n]:
        if name == "chaos":
            figures = chaos.run(args.kills, args.consolidations, consumers=args.consumers, workers=1, database_url=url)
        elif name == "concurrency":
            figures = concurrency.run(args.producers, args.captures, 1, consumer_count=args.consumers, database_url=url)
        elif name == "everyday":
            figures = everyday.run(args.everyday_seconds, args.model_delay, database_url=url)
        elif name == "hook_fuzz":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                figures = hook_fuzz.run(args.fuzz_examples, derandomize=not args.random, database_url=url)
        elif name == "model_replies":
            figures = model_replies.run(database_url=url)
        elif name == "planted_secrets":
            figures = planted_secrets.run(database_url=url)
        elif name in POSTGRES_ONLY and not url:
            print(f"reliability {name}: skipped (PostgreSQL only; pass --database-url)", flush=True)
            continue
        elif name == "pg_faults":
            figures = pg_faults.run(database_url=url)
        elif name == "gateway_chaos":
            figures = gateway_chaos.run(6, 3, 60, database_url=url)
        elif name == "pg_drops":
            figures = pg_drops.run(6, 3, 60, database_url=url)
        else:
            parser.error(f"unknown check {name!r}; choose from {', '.join(CHECKS)}")
        print_figures(name, figures)
        results[name] = figures
    print(json.dumps({"seconds": round(time.monotonic() - started, 1), "results": results}, indent=2))


if __name__ == "__main__":
    main()
