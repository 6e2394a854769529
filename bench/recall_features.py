"""Per question and candidate claim, the features recall already computes, labelled gold or not.

    python bench/recall_features.py [--eval-dir DIR] [--only locomo,...] [--out FILE]

Every development set is recalled as ``bench/recall_runs.py`` does (one store per
conversation, the real index, read-only). Beside the real recall, each question's plan is
evaluated a second time scoring *every* candidate (no stopping proof, every reject kept),
so the fitted decision (``bench/recall_fit.py``) sees each candidate the engine could have
judged. Written as JSON lines, one question a line:

* ``set``: the development set (the keys of ``recall_quality.SETS``, or an abstention check);
* ``gold``: the gold evidence items; ``rules``: the gold keys of each claim the current
  rules returned (``lead_taken``: the lexical lead's, nothing else passing); ``bm25``: the
  gold keys of BM25 top 3's claims;
* ``candidates``: per candidate its gold keys and features: raw relevance, its share of the
  best ranked one and its lead over the next distinct one below it, focus coverage,
  matched focus features, the gate it failed (``None``, or its name), the selection step that
  dropped it, freshness, dormant, complete, and the question's focus length in terms.

The data is read where it lies; the output goes where ``--out`` says (default under /tmp).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_sets import Conversation, devmembench, locomo, madial, memdaily  # noqa: E402
from bench.recall_quality import ABSTENTION, DEFAULT_EVAL, SETS  # noqa: E402
from bench.recall_runs import BM25, _store  # noqa: E402
from memory_core.recall import engine, proof, service  # noqa: E402
from memory_core.recall.lead import UNRANKED  # noqa: E402

# The split of each set a question belongs to, as recall_quality reports them.
SPLITS = {split: name for name, split in SETS.items()} | {
    split: f"{name} abstention" for name, split in ABSTENTION.items()
}
# The selection steps (not gates) that may drop a candidate that passed every gate.
SELECTION = frozenset(
    {"below_relative_cutoff", "ambiguous", "redundant_facet", "duplicate_content", "over_limit", "dormant"}
)


@contextmanager
def exhaustive() -> Iterator[None]:
    """The engine scoring every candidate and keeping every reject (for the features only)."""
    saved = (engine.BODY_PATH, engine.REJECTS_KEPT, proof.Proof.proven)
    engine.BODY_PATH, engine.REJECTS_KEPT = False, 10**6
    proof.Proof.proven = lambda self, bound: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        engine.BODY_PATH, engine.REJECTS_KEPT, proof.Proof.proven = saved  # type: ignore[method-assign]


def features(outcome: engine.Outcome, focus_terms: int, keys: dict[str, set[str]]) -> list[dict]:
    """One row per candidate of ``outcome`` (an exhaustive evaluation)."""
    ranked = [c for c in outcome.candidates if c.raw > 0 and c.excluded not in UNRANKED]
    ranked.sort(key=lambda c: (-c.raw, c.doc.memory_id))
    best = ranked[0].raw if ranked else 0.0
    rows = []
    for n, c in enumerate(ranked):
        key = (c.doc.origin, c.doc.content_hash)
        below = next((o.raw for o in ranked[n + 1 :] if (o.doc.origin, o.doc.content_hash) != key), 0.0)
        above = sum(1 for o in ranked[:n] if (o.doc.origin, o.doc.content_hash) != key)
        gate = c.excluded if c.excluded not in SELECTION and c.excluded is not None else None
        rows.append(
            {
                "keys": sorted(keys.get(c.doc.memory_id, set())),
                "raw": round(c.raw, 4),
                "share": round(c.raw / best, 4) if best else 0.0,
                "lead": round(c.raw / below, 4) if below else None,
                "position": above,
                "coverage": round(c.coverage, 4),
                "matched": len(c.matched),
                "gate": gate,
                "dropped": c.excluded if c.excluded in SELECTION else None,
                "freshness": round(c.freshness, 4),
                "dormant": c.dormant,
                "complete": c.complete,
                "focus": focus_terms,
            }
        )
    return rows


def collect(conversations: Iterable[Conversation], name: str) -> Iterator[dict]:
    """One record per question of ``conversations`` (see the module's docstring)."""
    seen: list[engine.Outcome] = []
    real = service.evaluate_plan

    def spy(conn, plan, **kw):  # type: ignore[no-untyped-def]
        outcome = real(conn, plan, **kw)
        with exhaustive():
            seen.append(real(conn, plan, **kw))
        seen.append(plan)
        return outcome

    service.evaluate_plan = spy  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory(prefix=f"memevo-features-{name}-") as tmp:
            for n, conv in enumerate(conversations):
                origin = f"/bench/{name}/{n}"
                store, keys = _store(Path(tmp) / f"c{n}", conv.claims, origin)
                bm25 = BM25([c.content for c in conv.claims])
                for q in conv.questions:
                    seen.clear()
                    if len(q.texts) == 1:
                        result = service.recall(store.conn, q.texts[0][:2048], now=q.now)
                    else:
                        result = service.turn_recall(store.conn, q.texts, now=q.now, session_is_fresh=False)
                    sets = [SPLITS[s] for s in q.splits if s in SPLITS]
                    if not sets or len(seen) < 2:
                        continue
                    outcome, plan = seen[0], seen[1]
                    yield {
                        "set": sets[0],
                        "gold": sorted(q.gold),
                        "rules": [sorted(keys[c.memory_id]) for c in result.claims],
                        "lead_taken": bool((result.diagnostics.get("lead") or {}).get("taken")),
                        "bm25": [sorted(conv.claims[i].keys) for _, i in bm25.scored(" ".join(q.texts))],
                        "candidates": features(outcome, len(plan.focus), keys),
                    }
                store.close()
    finally:
        service.evaluate_plan = real  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--only", default="locomo,memdaily,madial,devmembench")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "memevo-recall-features.jsonl")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    sources: list[tuple[str, Iterable[Conversation]]] = []
    if "locomo" in wanted:
        sources.append(("locomo", locomo(args.eval_dir)))
    if "memdaily" in wanted:
        sources.append(("memdaily", memdaily(args.eval_dir)))
    if "madial" in wanted:
        sources += [(f"madial-{lang}", [madial(args.eval_dir, lang)]) for lang in ("ch", "en")]
    if "devmembench" in wanted:
        sources.append(("devmembench", [devmembench(args.eval_dir)]))
    count = 0
    with args.out.open("w", encoding="utf-8") as out:
        for name, conversations in sources:
            for record in collect(conversations, name):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
    print(f"{count} questions -> {args.out}")


if __name__ == "__main__":
    main()
