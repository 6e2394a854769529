"""Recall quality on the public development data in ../shared/eval, beside two BM25 baselines.

    python bench/recall_quality.py [--eval-dir DIR] [--only locomo,memdaily,madial]
                                   [--bm25-fraction 0.5] [--why] [--json]

Every conversation gets its own temporary state dir; claims are written through the real
store (so the real index is built) and recalled read-only, exactly as the hook does. The
baselines are a plain Okapi BM25 (k1 1.5, b 0.75) over the *same* tokenizer features:

* ``bm25_top3``: its top 3 for every question (it never refuses);
* ``bm25_rel``: its top 3, keeping only results scoring at least ``--bm25-fraction`` of the
  best one (a baseline that can also return fewer claims, or none when nothing matches).

Reported per benchmark and split, for every system alike (micro averages):

* recall: gold evidence items found among the returned claims / all gold items;
* precision: returned claims that are gold / all returned claims, over all questions (a
  question answered with nothing adds to neither count);
* empty: share of questions answered with nothing;
* hit: share of questions with at least one gold claim returned.

Benchmarks and splits:

* LoCoMo: observations as claims (one store per conversation; the question alone is the
  query). Categories 1-4 together (the gate), each category, and category 5 apart
  ("adversarial": the question names the wrong person, so refusing is legitimate).
  Evidence strings holding several ids are split on ``[,; ]+``.
* MemDaily: one store per trajectory of user messages, the question is the query; per
  scenario (``events``, ``roles``) and per question type within it.
* MADial-Bench zh and en: one store per language holding its memory file; the user turns
  before the test turn are the conversation, the last one being the current query.

``--undated`` stores every claim at one moment and asks a minute later (nothing ages or is
dormant), as an import of lines without ``created_at`` followed by ``memevo recall --batch``.

``--why`` adds, per benchmark and split, why memevo dropped the gold claims that BM25's top
3 held (the gate or selection step named by ``memevo explain QUERY --claim ID``).

The data is read where it lies and never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_runs import Run, Tally, measure  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_EVAL = REPO.parent / "shared" / "eval"


# The sets a choice is made on and measured on, each left out in turn (``--lead-grid``), and
# the questions whose right answer is nothing (their share answered with nothing must hold).
SETS = {
    "LoCoMo": "LoCoMo categories 1-4",
    "MemDaily": "MemDaily",
    "MADial zh": "MADial zh",
    "MADial en": "MADial en",
    "DevMemBench": "DevMemBench answerable",
}
ABSTENTION = {"LoCoMo": "LoCoMo category 5 (adversarial)", "DevMemBench": "DevMemBench abstention"}
GOAL_RECALL, GOAL_PRECISION = 0.8, 1.3
LEAD_RATIOS = (1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, math.inf)
LEAD_COVERAGES = (0.0, 0.1, 0.2, 0.3, 0.35, 0.4, 0.42, 0.44)


def lead_tallies(run: Run, ratio: float | None, coverage: float) -> dict[str, Tally]:
    """memevo's tallies per split had the lexical lead needed ``ratio`` and ``coverage``
    (``None``: no lead at all)."""
    tallies: dict[str, Tally] = {}
    for a in run.answers:
        returned = a.base
        if ratio is not None and not returned and a.lead and a.lead["eligible"]:
            lead_ratio = math.inf if a.lead["ratio"] is None else a.lead["ratio"]
            if lead_ratio >= ratio and a.lead["coverage"] >= coverage:
                returned = [a.lead_keys]
        for split in a.question.splits:
            tallies.setdefault(split, Tally()).add(returned, a.question.gold)
    return tallies


def _figures(tallies: dict[str, Tally], bm25: dict[str, dict], name: str) -> dict[str, float]:
    m, b = tallies[SETS[name]].row(), bm25[SETS[name]]
    out = {
        "recall": m["recall"],
        "precision": m["precision"],
        "empty": m["empty"],
        "recall_ratio": round(m["recall"] / b["recall"], 3) if b["recall"] else 0.0,
        "precision_ratio": round(m["precision"] / b["precision"], 3) if b["precision"] else 0.0,
    }
    if name in ABSTENTION:
        out["abstention_empty"] = tallies[ABSTENTION[name]].row()["empty"]
    return out


def _objective(figures: dict[str, dict[str, float]], before: dict[str, dict[str, float]]) -> float:
    """Mean recall ratio over the sets, less penalties for precision lost (twice over below
    the goal, or below what it was where it already was) and for abstention questions answered."""
    total = 0.0
    for name, f in figures.items():
        floor = min(GOAL_PRECISION, before[name]["precision_ratio"])
        lost = max(0.0, before[name]["precision_ratio"] - f["precision_ratio"])
        total += f["recall_ratio"] - 2 * max(0.0, floor - f["precision_ratio"]) - lost
        if "abstention_empty" in f:
            total -= max(0.0, before[name]["abstention_empty"] - f["abstention_empty"])
    return total / len(figures)


def leave_one_out(figures: dict, before: dict[str, dict[str, float]]) -> dict:
    """For each set, the choice (a key of ``figures``) made on the other sets and that set's
    figures with it; ``figures`` maps each choice to figures per set. Ties go to the larger key."""
    names = list(before)

    def best(tuned: list[str]):
        return max(figures, key=lambda k: (_objective({n: figures[k][n] for n in tuned}, before), k))

    report: dict = {"before": before, "left_out": {}}
    for name in names:
        choice = best([n for n in names if n != name])
        report["left_out"][name] = {"choice": choice, **figures[choice][name]}
    choice = best(names)
    report["all"] = {"choice": choice, "figures": figures[choice]}
    report["each"] = {str(k): f for k, f in figures.items()}
    return report


def lead_grid(run: Run, results: dict[str, dict]) -> dict:
    """The lead's two constants chosen on all sets but one, and that set's figures with them."""
    bm25 = {split: systems["bm25_top3"] for split, systems in results.items()}
    names = [n for n in SETS if SETS[n] in bm25]
    grid = {(r, c): lead_tallies(run, r, c) for r in LEAD_RATIOS for c in LEAD_COVERAGES}
    figures = {key: {n: _figures(t, bm25, n) for n in names} for key, t in grid.items()}
    off = lead_tallies(run, None, 0.0)
    return leave_one_out(figures, {n: _figures(off, bm25, n) for n in names})


def _patch(name: str, value: float) -> float:
    """Set the constant ``name`` to ``value`` in every recall module holding it; the old value."""
    holders = [m for k, m in sys.modules.items() if k.startswith("memory_core.") and hasattr(m, name)]
    old = getattr(holders[0], name)
    for module in holders:
        if getattr(module, name) == old:
            setattr(module, name, value)
    return old


def sweep(args: argparse.Namespace, wanted: set[str]) -> dict:
    """``--sweep NAME=v1,v2,...``: the whole bench once per value, then each set left out in turn."""
    name, values = args.sweep.split("=")
    figures: dict = {}
    current = None
    for value in [float(v) for v in values.split(",")]:
        old = _patch(name, value)
        current = old if current is None else current
        run = measure(args, wanted)
        results = run.results()
        bm25 = {split: systems["bm25_top3"] for split, systems in results.items()}
        tallies = {split: systems["memevo"] for split, systems in run.tallies.items()}
        figures[value] = {n: _figures(tallies, bm25, n) for n in SETS if SETS[n] in bm25}
        _patch(name, old)
    if current not in figures:
        raise SystemExit(f"give the current value of {name} ({current}) among the values swept")
    return leave_one_out(figures, figures[current])


def _print_grid(report: dict, title: str) -> None:
    print(f"\n{title}, each set left out in turn (chosen on the other sets):")
    head = "recall  prec empty R/BM25 P/BM25"
    print(f"{'set':<12} | before: {head} | {'choice':>10} | left out: {head} | abstention empty")
    for name, b in report["before"].items():
        f = report["left_out"][name]
        abst = f"{b['abstention_empty']:.2f} -> {f['abstention_empty']:.2f}" if "abstention_empty" in b else ""
        print(
            f"{name:<12} | {b['recall']:>13.3f} {b['precision']:.3f} {b['empty']:.3f} {b['recall_ratio']:>6.2f} "
            f"{b['precision_ratio']:>6.2f} | {str(f['choice']):>10} | {f['recall']:>16.3f} "
            f"{f['precision']:.3f} {f['empty']:.3f} {f['recall_ratio']:>6.2f} {f['precision_ratio']:>6.2f} | {abst}"
        )
    print(f"chosen on all sets: {report['all']['choice']}")


def _print(results: dict[str, dict], fraction: float) -> None:
    rel = f"BM25 >={fraction:.0%} of top"
    print(f"{'benchmark / split':<34} {'n':>4} | {'memevo':^20} {'ms/q':>5} | {'BM25 top-3':^13} | {rel:^20}")
    print(
        f"{'':<34} {'':>4} | {'recall':>6} {'prec':>6} {'empty':>6} {'':>5} | {'recall':>6} {'prec':>6} "
        f"| {'recall':>6} {'prec':>6} {'empty':>6}"
    )
    for split, systems in results.items():
        m, b, r = systems["memevo"], systems["bm25_top3"], systems["bm25_rel"]
        print(
            f"{split:<34} {m['questions']:>4} | {m['recall']:>6.3f} {m['precision']:>6.3f} {m['empty']:>6.3f} "
            f"{m['ms_per_question']:>5.2f} | {b['recall']:>6.3f} {b['precision']:>6.3f} "
            f"| {r['recall']:>6.3f} {r['precision']:>6.3f} {r['empty']:>6.3f}"
        )
        why = systems.get("memevo_misses_bm25_found")
        if why:
            print(f"{'':<34}      memevo dropped BM25-found gold: " + ", ".join(f"{k} {v}" for k, v in why.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--only", default="locomo,memdaily,madial,devmembench")
    parser.add_argument(
        "--bm25-fraction",
        type=float,
        default=0.5,
        help="bm25_rel keeps top-3 results scoring at least this share of the best",
    )
    parser.add_argument("--why", action="store_true", help="say why memevo dropped the gold claims BM25's top 3 held")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--undated",
        action="store_true",
        help="store every claim at one moment and ask right after (no aging, nothing dormant), as an import of "
        "lines without created_at and `memevo recall --batch` do",
    )
    parser.add_argument(
        "--lead-grid", action="store_true", help="choose the lexical lead's constants with each set left out in turn"
    )
    parser.add_argument(
        "--sweep",
        metavar="NAME=V1,V2,...",
        help="run once per value of a recall constant (the current one among them) and choose it leaving each set out",
    )
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    started = time.perf_counter()
    if args.sweep:
        report = sweep(args, wanted)
        if args.json:
            print(json.dumps(report, indent=2, default=str))
        else:
            _print_grid(report, args.sweep.split("=")[0])
            print(f"({time.perf_counter() - started:.1f} s)")
        return
    run = measure(args, wanted)
    order = ["LoCoMo categories 1-4", *[f"LoCoMo category {c}" for c in range(1, 5)], "LoCoMo category 5 (adversarial)"]
    results = run.results()
    ranked = {k: results[k] for k in order if k in results}
    ranked.update({k: v for k, v in sorted(results.items()) if k not in ranked and k.startswith("MemDaily")})
    ranked.update({k: v for k, v in results.items() if k not in ranked})
    grid = lead_grid(run, results) if args.lead_grid else None
    if args.json:
        print(json.dumps({**ranked, "lead_grid": grid} if grid else ranked, indent=2, ensure_ascii=False, default=str))
        return
    _print(ranked, args.bm25_fraction)
    if grid:
        _print_grid(grid, "Lexical lead (ratio, coverage)")
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
