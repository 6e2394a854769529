"""Run the whole reliability suite with bench-sized numbers and print every figure.

    python -m bench.reliability [--only chaos,concurrency,hook_fuzz,model_replies,planted_secrets]
        [--kills 20] [--consolidations 120] [--producers 8] [--captures 250]
        [--fuzz-examples 2000] [--random]

The CI-sized run is `pytest tests/reliability` (N=5 kills over M=30 consolidations,
4 producers x 25 captures, 400 fuzz examples).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.reliability import chaos, concurrency, hook_fuzz, model_replies, planted_secrets  # noqa: E402
from bench.reliability.harness import print_figures  # noqa: E402

CHECKS = ("chaos", "concurrency", "hook_fuzz", "model_replies", "planted_secrets")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(CHECKS))
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--consolidations", type=int, default=120)
    parser.add_argument("--producers", type=int, default=8)
    parser.add_argument("--captures", type=int, default=250)
    parser.add_argument("--fuzz-examples", type=int, default=2_000)
    parser.add_argument("--random", action="store_true", help="fresh random fuzz examples")
    args = parser.parse_args()
    results: dict[str, object] = {}
    started = time.monotonic()
    for name in [n for n in args.only.split(",") if n]:
        if name == "chaos":
            figures = chaos.run(args.kills, args.consolidations)
        elif name == "concurrency":
            figures = concurrency.run(args.producers, args.captures)
        elif name == "hook_fuzz":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                figures = hook_fuzz.run(args.fuzz_examples, derandomize=not args.random)
        elif name == "model_replies":
            figures = model_replies.run()
        elif name == "planted_secrets":
            figures = planted_secrets.run()
        else:
            parser.error(f"unknown check {name!r}; choose from {', '.join(CHECKS)}")
        print_figures(name, figures)
        results[name] = figures
    print(json.dumps({"seconds": round(time.monotonic() - started, 1), "results": results}, indent=2))


if __name__ == "__main__":
    main()
