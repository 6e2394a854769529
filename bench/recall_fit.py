"""One fitted decision against recall's hand-set gates, each development set left out in turn.

    python bench/recall_features.py            # the features (about a minute)
    python bench/recall_fit.py [--features FILE] [--json]

A logistic model over a handful of the features recall already computes (see
``recall_features.py``) gives each candidate the odds that it is gold. Two ways to use it:

* ``fitted``: the decision alone: a question's candidates whose probability reaches a
  threshold, best first, at most three; the firm gates (``lead.FIRM_REASONS``: the claim is
  about something else, or memory never heard of what is asked) and dormant claims stay out;
* ``fallback``: the rules as they are, and only when they pass nothing (the lexical lead's
  place) the fitted decision choosing up to ``N`` candidates.

For each set left out, the model is fitted on the other sets (each set weighing the same)
and the threshold (and ``N``) chosen on them by ``recall_quality``'s objective (mean recall
ratio to BM25 top 3 less precision lost and abstention questions answered); the left-out
set's figures with that choice are reported beside the rules'. Plain Python (Newton's
method on a dozen features): no dependency beyond the standard library.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_quality import _objective  # noqa: E402
from memory_core.recall.lead import FIRM_REASONS  # noqa: E402

SETS = ("LoCoMo", "MemDaily", "MADial zh", "MADial en", "DevMemBench")
ABSTAIN = {"LoCoMo": "LoCoMo abstention", "DevMemBench": "DevMemBench abstention"}
# Only the best few candidates of a question by raw relevance are judged (and fitted on).
JUDGED = 10
LIMIT = 3
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 19))
FALLBACK_LIMITS = (1, 2, 3)
SOFT = frozenset({"focus_coverage", "too_few_matches", "no_qualifying_match", "context_subject_missing"})
NAMES = (
    "bias",
    "log raw",
    "share of best",
    "log lead",
    "position",
    "coverage",
    "matched",
    "focus terms",
    "passed gates",
    "soft gate",
    "close claims",
    "freshness",
    "complete",
)
L2 = 1.0

Record = dict
Policy = Callable[[Record], list[list[str]]]


def vector(c: dict, close: int) -> list[float]:
    """The model's inputs for one candidate (``close``: distinct candidates within 0.9 of the best)."""
    lead = 8.0 if c["lead"] is None else min(8.0, c["lead"])
    return [
        1.0,
        math.log1p(c["raw"]),
        c["share"],
        math.log(lead),
        min(c["position"], 9) / 9,
        c["coverage"],
        min(c["matched"], 8) / 8,
        min(c["focus"], 20) / 20,
        float(c["gate"] is None),
        float(c["gate"] in SOFT),
        min(close, 10) / 10,
        c["freshness"],
        float(c["complete"]),
    ]


def judged(record: Record) -> list[tuple[dict, list[float]]]:
    """The candidates the decision may take (no firm gate, awake, among the best few)."""
    cands = record["candidates"]
    close = len({tuple(c["keys"]) for c in cands if c["share"] >= 0.9}) if cands else 0
    return [
        (c, vector(c, close))
        for c in cands[:JUDGED]
        if c["gate"] not in FIRM_REASONS and not c["dormant"] and c["position"] < JUDGED
    ]


def is_gold(c: dict, record: Record) -> bool:
    return bool(set(c["keys"]) & set(record["gold"]))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit(records: list[Record]) -> list[float]:
    """Weights of an L2-regularised logistic model, each set's candidates weighing the same in all."""
    rows: list[tuple[list[float], float, float]] = []
    per_set: dict[str, int] = {}
    for r in records:
        per_set[r["set"]] = per_set.get(r["set"], 0) + len(judged(r))
    for r in records:
        share = 1.0 / max(1, per_set[r["set"]])
        rows += [(x, float(is_gold(c, r)), share) for c, x in judged(r)]
    k = len(NAMES)
    w = [0.0] * k
    for _ in range(25):
        grad = [L2 * wi * 1e-3 for wi in w]
        hess = [[(L2 * 1e-3 if i == j else 0.0) for j in range(k)] for i in range(k)]
        for x, y, share in rows:
            z = sum(wi * xi for wi, xi in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            g = share * (p - y)
            h = share * p * (1 - p)
            for i in range(k):
                grad[i] += g * x[i]
                hx = h * x[i]
                row = hess[i]
                for j in range(k):
                    row[j] += hx * x[j]
        step = _solve(hess, grad)
        w = [wi - si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def probability(w: list[float], x: list[float]) -> float:
    z = sum(wi * xi for wi, xi in zip(w, x, strict=True))
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def fitted_policy(w: list[float], threshold: float, limit: int = LIMIT) -> Policy:
    def choose(record: Record) -> list[list[str]]:
        scored = sorted(((probability(w, x), c["position"], c) for c, x in judged(record)), key=lambda t: (-t[0], t[1]))
        return [c["keys"] for p, _, c in scored if p >= threshold][:limit]

    return choose


def fallback_policy(w: list[float], threshold: float, limit: int) -> Policy:
    fitted = fitted_policy(w, threshold, limit)

    def choose(record: Record) -> list[list[str]]:
        base = [] if record["lead_taken"] else record["rules"]
        return base or fitted(record)

    return choose


def rules(record: Record) -> list[list[str]]:
    return record["rules"]


def bm25(record: Record) -> list[list[str]]:
    return record["bm25"]


def tally(records: list[Record], policy: Policy) -> dict[str, dict[str, float]]:
    """Recall, precision and empty share per set (micro averages, as ``recall_runs.Tally``)."""
    counts: dict[str, list[int]] = {}
    for r in records:
        gold = set(r["gold"])
        returned = [set(k) for k in policy(r)]
        n = counts.setdefault(r["set"], [0, 0, 0, 0, 0, 0])
        covered = set().union(*returned) if returned else set()
        n[0] += 1
        n[1] += len(gold)
        n[2] += len(gold & covered)
        n[3] += len(returned)
        n[4] += sum(1 for k in returned if k & gold)
        n[5] += not returned
    return {
        s: {
            "recall": n[2] / n[1] if n[1] else 0.0,
            "precision": n[4] / n[3] if n[3] else 0.0,
            "empty": n[5] / n[0],
        }
        for s, n in counts.items()
    }


def figures(records: list[Record], policy: Policy, base: dict) -> dict[str, dict[str, float]]:
    """Per set: recall, precision, empty, ratios to BM25 top 3 (``base``), abstention empty."""
    t = tally(records, policy)
    out = {}
    for name in SETS:
        if name not in t:
            continue
        f = dict(t[name])
        f["recall_ratio"] = f["recall"] / base[name]["recall"] if base[name]["recall"] else 0.0
        f["precision_ratio"] = f["precision"] / base[name]["precision"] if base[name]["precision"] else 0.0
        if ABSTAIN.get(name) in t:
            f["abstention_empty"] = t[ABSTAIN[name]]["empty"]
        out[name] = f
    return out


def _on(records: list[Record], names: set[str]) -> list[Record]:
    keep = names | {ABSTAIN[n] for n in names if n in ABSTAIN}
    return [r for r in records if r["set"] in keep]


def leave_one_out(records: list[Record]) -> dict:
    """For each set: the rules' figures, and those of each variant fitted and chosen on the others."""
    base = tally(records, bm25)
    before = figures(records, rules, base)
    names = [n for n in SETS if n in before]
    report: dict = {"before": before, "fitted": {}, "fallback": {}}
    for name in names:
        others = set(names) - {name}
        train = _on(records, others)
        w = fit(train)
        train_before = {n: before[n] for n in others}
        for variant, grid in (
            ("fitted", [(t, LIMIT) for t in THRESHOLDS]),
            ("fallback", [(t, n) for t in THRESHOLDS for n in FALLBACK_LIMITS]),
        ):
            make = fitted_policy if variant == "fitted" else fallback_policy
            score = {
                key: _objective({n: f for n, f in figures(train, make(w, *key), base).items()}, train_before)
                for key in grid
            }
            choice = max(grid, key=lambda key: (score[key], key))
            left = figures(_on(records, {name}), make(w, *choice), base)[name]
            report[variant][name] = {"choice": choice, "weights": dict(zip(NAMES, w, strict=True)), **left}
    return report


def auc(pairs: list[tuple[float, bool]]) -> float:
    """The chance that a gold candidate scores above a wrong one (ties count half)."""
    pairs = sorted(pairs)
    gold = sum(1 for _, y in pairs if y)
    wrong = len(pairs) - gold
    if not gold or not wrong:
        return 0.0
    below, total, i = 0.0, 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        ties = pairs[i:j]
        g = sum(1 for _, y in ties if y)
        total += g * (below + 0.5 * (len(ties) - g))
        below += len(ties) - g
        i = j
    return total / (gold * wrong)


def calibration(records: list[Record]) -> dict[str, dict[str, float]]:
    """Per set left out: its judged candidates' gold rate, the mean probability the model
    fitted on the others gives them, and how well it orders them (AUC) beside raw relevance's
    share of the best alone."""
    names = [n for n in SETS if any(r["set"] == n for r in records)]
    out = {}
    for name in names:
        w = fit(_on(records, set(names) - {name}))
        rows = [(c, x, is_gold(c, r)) for r in records if r["set"] == name for c, x in judged(r)]
        out[name] = {
            "candidates": len(rows),
            "gold_rate": sum(y for *_, y in rows) / max(1, len(rows)),
            "mean_probability": sum(probability(w, x) for _, x, _ in rows) / max(1, len(rows)),
            "auc": auc([(probability(w, x), y) for _, x, y in rows]),
            "auc_share": auc([(c["share"], y) for c, _, y in rows]),
        }
    return out


def ceiling(records: list[Record], base: dict) -> dict[str, dict[str, float]]:
    """What a perfect decision would reach: every gold candidate the decision may judge
    taken (at most three), nothing else; the pool, not the decision, bounds it."""

    def perfect(record: Record) -> list[list[str]]:
        return [c["keys"] for c, _ in judged(record) if is_gold(c, record)][:LIMIT]

    return figures(records, perfect, base)


def _row(f: dict) -> str:
    abst = f" abst {f['abstention_empty']:.2f}" if "abstention_empty" in f else ""
    return (
        f"{f['recall']:.3f} / {f['precision']:.3f} / {f['empty']:.3f} "
        f"({f['recall_ratio']:.2f}x, {f['precision_ratio']:.2f}x){abst}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(tempfile.gettempdir()) / "memevo-recall-features.jsonl"
    parser.add_argument("--features", type=Path, default=default)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    records = [json.loads(line) for line in args.features.open(encoding="utf-8")]
    report = leave_one_out(records)
    report["calibration"] = calibration(records)
    report["ceiling"] = ceiling(records, tally(records, bm25))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, b in report["before"].items():
        print(f"{name:<12} rules    {_row(b)}")
        for variant in ("fitted", "fallback"):
            f = report[variant][name]
            print(f"{'':<12} {variant:<8} {_row(f)}  choice {f['choice']}")
    print("a perfect decision over the same candidates:")
    for name, f in report["ceiling"].items():
        print(f"  {name:<12} {_row(f)}")
    print("left out: candidates, gold rate, mean probability, AUC (fitted / share of best alone)")
    for name, c in report["calibration"].items():
        print(
            f"  {name:<12} {c['candidates']:>6} {c['gold_rate']:.3f} {c['mean_probability']:.3f} "
            f"{c['auc']:.3f} / {c['auc_share']:.3f}"
        )
    print("weights (fitted with DevMemBench left out):")
    for k, v in report["fitted"][SETS[-1]]["weights"].items():
        print(f"  {k:<14} {v:+.3f}")


if __name__ == "__main__":
    main()
