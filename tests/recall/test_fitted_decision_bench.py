"""The fitted-decision bench: the logistic fit learns a separable signal, AUC counts ties
half, and the tallies are those of ``recall_runs.Tally`` (micro averages)."""

from __future__ import annotations

from bench.recall_fit import auc, fit, fitted_policy, judged, probability, tally


def candidate(share: float, keys: list[str], gate: str | None = None, position: int = 0) -> dict:
    return {
        "keys": keys,
        "raw": 10 * share,
        "share": share,
        "lead": None,
        "position": position,
        "coverage": share,
        "matched": 2,
        "gate": gate,
        "dropped": None,
        "freshness": 1.0,
        "dormant": False,
        "complete": False,
        "focus": 3,
    }


def record(name: str, gold: list[str], candidates: list[dict], rules: list[list[str]]) -> dict:
    return {"set": name, "gold": gold, "rules": rules, "lead_taken": False, "bm25": [], "candidates": candidates}


def test_the_fit_ranks_the_candidate_it_was_shown_to_be_gold_above_the_other() -> None:
    records = [
        record(s, ["g"], [candidate(1.0, ["g"]), candidate(0.3, ["x"], position=1)], [])
        for s in ("A", "B")
        for _ in range(20)
    ]
    w = fit(records)
    good, bad = (x for _, x in judged(records[0]))
    assert probability(w, good) > 0.8 > 0.2 > probability(w, bad)
    assert fitted_policy(w, 0.5)(records[0]) == [["g"]]


def test_a_firm_gate_keeps_a_candidate_from_the_decision() -> None:
    r = record("A", ["g"], [candidate(1.0, ["g"], gate="literal_missing")], [])
    assert judged(r) == []


def test_auc_counts_ties_half() -> None:
    assert auc([(0.9, True), (0.1, False)]) == 1.0
    assert auc([(0.5, True), (0.5, False)]) == 0.5
    assert auc([(0.1, True), (0.9, False), (0.5, True)]) == 0.0


def test_tally_is_micro_averaged_per_set() -> None:
    records = [
        record("A", ["g", "h"], [], [["g"], ["x"]]),
        record("A", ["k"], [], []),
    ]
    t = tally(records, lambda r: r["rules"])["A"]
    assert t == {"recall": 1 / 3, "precision": 0.5, "empty": 0.5}
