"""A lead over the whole conversation when recall answers the last message with nothing,
ranked with recall's own index and weights (measured, not shipped; docs/recall.md, "Tenth
round").

    python bench/conversation_lead.py [--eval-dir DIR] [--json]

MADial's questions come with the user's earlier turns (the only development set whose
questions do). For each question recall answers with nothing (`service.turn_recall`, as the
prompt hook asks), the claims are ranked by the conversation's words: the plan's focus,
context and background features some claim holds, the ``RARE`` rarest of them read from the
index's posting lists, each adding recall's weight for it (``feature_weight``, by the
strongest field it is found in), times the claim's length factor; a dormant claim neither
leads nor stands in the way, and only claims sharing at least ``S`` of those words are ranked
at all. The first claim is taken when it leads the next distinct claim by a ratio ``R``. Every (S, R) of the grid, dated
(the bench's default: claims dated by the data, asked at its "now") and undated (as `memevo
import` and `memevo recall --batch` see them), beside recall alone and BM25's top 3; then
each language left out in turn: (S, R) chosen on the other language's two runs by the
objective of ``bench/recall_quality.py`` (any precision lost counts) and by one that counts
precision only below the goal (1.3x BM25's, or below where it was), and the left-out
language's figures with that choice.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_sets import madial  # noqa: E402
from bench.recall_quality import DEFAULT_EVAL, GOAL_PRECISION  # noqa: E402
from bench.recall_runs import BM25, Tally, _store, undated  # noqa: E402
from memory_core.recall import service  # noqa: E402
from memory_core.recall.aging import is_dormant  # noqa: E402
from memory_core.recall.candidates import MAX_LIST_CLAIMS, add_postings, plan_features  # noqa: E402
from memory_core.recall.index import read_docs, read_headers, read_posting_list, read_recent_postings  # noqa: E402
from memory_core.recall.query_plan import build_plan  # noqa: E402
from memory_core.recall.scoring import feature_weight, field_strength, length_factor  # noqa: E402
from memory_core.store.engines.dbapi import DbConn  # noqa: E402

RARE = 16
SHARED = (2, 3, 4)
RATIOS = (1.1, 1.2, 1.3, 1.5, 2.0)
Ranked = list[tuple[float, str, int]]  # (score, claim id, shared words), best first, one per distinct text


def ranked_over_conversation(conn: DbConn, texts: list[str], now: float, min_shared: int) -> Ranked:
    """The best two claims by the conversation's rarer words (see the module's docstring)."""
    plan = build_plan(service._clean(service.conversation_slots(texts)))
    if not (plan.background or plan.context):
        return []
    features = plan_features(plan)
    headers = read_headers(conn, features)
    df, total = headers.document_frequency, headers.total
    # A feature in several parts of the plan takes the last one's literal flag (a literal is
    # the same word wherever it was said).
    literal = {t.feature: t.literal for t in (*plan.focus, *plan.context, *plan.background)}
    rare = sorted((f for f in features if df.get(f, 0) > 0), key=lambda f: (df[f], f))[:RARE]
    masks: dict[str, dict[str, int]] = {}
    for f in rare:
        rows = read_recent_postings(conn, f, MAX_LIST_CLAIMS) if df[f] > MAX_LIST_CLAIMS else read_posting_list(conn, f)
        add_postings(masks, rows, f, create=True)
    weights = {f: feature_weight(df[f], total, literal=literal.get(f, False)) for f in rare}
    bounds = {
        m: sum(weights[f] * field_strength(bits) for f, bits in found.items())
        for m, found in masks.items()
        if len(found) >= min_shared
    }
    docs = read_docs(conn, list(bounds))
    best: dict[tuple[str, str], tuple[float, str, int]] = {}
    for m, bound in bounds.items():
        doc = docs.get(m)
        if doc is None or is_dormant(doc.kind, doc.clock_at, now, pinned=bool(doc.pinned)):
            continue
        score = bound * length_factor(doc.feature_count)
        key = (doc.origin, doc.content_hash)
        if key not in best or (-score, m) < (-best[key][0], best[key][1]):
            best[key] = (score, m, len(masks[m]))
    return sorted(best.values(), key=lambda item: (-item[0], item[1]))[:2]


def run(eval_dir: Path, dated: bool) -> dict[str, dict[str, Any]]:
    """Per language: recall alone, BM25's top 3 and every (S, R), as tallies' rows."""
    out: dict[str, dict[str, Any]] = {}
    for lang, tag in (("ch", "zh"), ("en", "en")):
        conv = madial(eval_dir, lang)
        if not dated:
            conv = undated(conv)
        tallies: dict[Any, Tally] = {key: Tally() for key in ("recall", "bm25", *itertools.product(SHARED, RATIOS))}
        bm25 = BM25([c.content for c in conv.claims])
        with tempfile.TemporaryDirectory(prefix="memevo-conversation-lead-") as tmp:
            store, keys = _store(Path(tmp) / "store", conv.claims, f"/bench/madial-{lang}/0")
            for q in conv.questions:
                result = service.turn_recall(store.conn, q.texts, now=q.now, session_is_fresh=False)
                returned = [keys[c.memory_id] for c in result.claims]
                tallies["recall"].add(returned, q.gold)
                tallies["bm25"].add([conv.claims[i].keys for _, i in bm25.scored(" ".join(q.texts))], q.gold)
                for shared in SHARED:
                    top = [] if returned else ranked_over_conversation(store.conn, q.texts, q.now, shared)
                    ratio = top[0][0] / top[1][0] if len(top) > 1 else float("inf")
                    for r in RATIOS:
                        taken = [keys[top[0][1]]] if top and ratio >= r else []
                        tallies[(shared, r)].add(returned or taken, q.gold)
            store.close()
        out[tag] = {str(k): t.row() for k, t in tallies.items()}
    return out


def _objective(rows: dict[str, dict[str, Any]], choice: str, sets: list[tuple[str, str]], strict: bool) -> float:
    """``bench/recall_quality.py``'s objective (``strict``), or precision counted only below the goal."""
    total = 0.0
    for mode, lang in sets:
        figures, bm, before = rows[mode][lang][choice], rows[mode][lang]["bm25"], rows[mode][lang]["recall"]
        recall, precision = figures["recall"] / bm["recall"], figures["precision"] / bm["precision"]
        was = before["precision"] / bm["precision"]
        lost = max(0.0, was - precision) if strict else 0.0
        total += recall - 2 * max(0.0, min(GOAL_PRECISION, was) - precision) - lost
    return total / len(sets)


def leave_one_out(rows: dict[str, dict[str, Any]], strict: bool) -> dict[str, Any]:
    """Each language's (S, R) chosen on the other language's runs, and its figures with it;
    ``recall`` (no conversation lead) is one of the choices."""
    sets = [(mode, lang) for mode in rows for lang in ("zh", "en")]
    choices = [c for c in rows[sets[0][0]][sets[0][1]] if c != "bm25"]
    report: dict[str, Any] = {}
    for left in ("zh", "en"):
        tuned = [s for s in sets if s[1] != left]
        choice = max(choices, key=lambda c: (_objective(rows, c, tuned, strict), c))
        report[left] = {"choice": choice, **{mode: rows[mode][left][choice] for mode in rows}}
    # Ties go to the larger choice's text: "recall" (no lead) before any "(S, R)", then the
    # larger S, then the larger R.
    report["both"] = max(choices, key=lambda c: (_objective(rows, c, sets, strict), c))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = {"dated": run(args.eval_dir, True), "undated": run(args.eval_dir, False)}
    report = {"rows": rows, "strict": leave_one_out(rows, True), "goal": leave_one_out(rows, False)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for mode, langs in rows.items():
        for lang, by in langs.items():
            print(f"{mode} {lang}: hit / recall / precision / empty")
            for key, f in by.items():
                print(f"  {key:<10} {f['hit']:.3f} {f['recall']:.3f} {f['precision']:.3f} {f['empty']:.3f}")
    for name in ("strict", "goal"):
        r = report[name]
        print(f"{name}: chosen on both languages {r['both']}")
        for lang in ("zh", "en"):
            f = r[lang]
            print(
                f"  {lang} left out: {f['choice']} -> dated {f['dated']['hit']:.3f} / {f['dated']['recall']:.3f} / "
                f"{f['dated']['precision']:.3f}, undated {f['undated']['hit']:.3f} / {f['undated']['recall']:.3f} / "
                f"{f['undated']['precision']:.3f}"
            )


if __name__ == "__main__":
    main()
