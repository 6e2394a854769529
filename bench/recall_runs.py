"""One measuring run of recall quality: every conversation in a store of its own, memevo's
recall beside a plain Okapi BM25 over the same features, tallied per benchmark and split
(bench/recall_quality.py reports it and chooses constants from it).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_sets import Claim, Conversation, Question, devmembench, locomo, madial, memdaily  # noqa: E402
from memory_core.ids import content_hash, memory_id  # noqa: E402
from memory_core.recall import service  # noqa: E402
from memory_core.records import Evidence, Memory  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from memory_core.store.tables.memories import put_memory  # noqa: E402
from memory_core.text.query_features import query_terms  # noqa: E402
from memory_core.text.tokenize import features  # noqa: E402

SYSTEMS = ("memevo", "bm25_top3", "bm25_rel")
TOP = 3


@dataclass
class Tally:
    """Micro-averaged counts for one system on one split."""

    questions: int = 0
    gold: int = 0
    found: int = 0
    returned: int = 0
    correct: int = 0
    empty: int = 0
    hits: int = 0
    seconds: float = 0.0

    def add(self, returned: list[set[str]], gold: set[str], seconds: float = 0.0) -> None:
        """Score one question: ``returned`` holds the gold keys each returned claim carries."""
        self.questions += 1
        self.gold += len(gold)
        covered = set().union(*returned) if returned else set()
        self.found += len(gold & covered)
        self.returned += len(returned)
        self.correct += sum(1 for keys in returned if keys & gold)
        self.empty += not returned
        self.hits += bool(gold & covered)
        self.seconds += seconds

    def row(self) -> dict[str, float]:
        return {
            "questions": self.questions,
            "recall": round(self.found / self.gold, 3) if self.gold else 0.0,
            "precision": round(self.correct / self.returned, 3) if self.returned else 0.0,
            "empty": round(self.empty / self.questions, 3) if self.questions else 0.0,
            "hit": round(self.hits / self.questions, 3) if self.questions else 0.0,
            "claims_per_answer": round(self.returned / max(1, self.questions - self.empty), 2),
            "ms_per_question": round(1000 * self.seconds / max(1, self.questions), 2),
        }


class BM25:
    """Okapi BM25 over the recall tokenizer's features: the baselines, with no gates."""

    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.tf = [features(d) for d in docs]
        self.lengths = [sum(t.values()) for t in self.tf]
        self.n = len(docs)
        self.avg = sum(self.lengths) / max(1, self.n)
        self.df = Counter(f for t in self.tf for f in t)
        self.k1, self.b = k1, b

    def scored(self, query: str, k: int = TOP) -> list[tuple[float, int]]:
        """The best ``k`` (score, document) pairs with a positive score, best first."""
        terms = [t.feature for t in query_terms(query)]
        scored = []
        for i, tf in enumerate(self.tf):
            score = 0.0
            for f in terms:
                if f in tf:
                    idf = math.log(1 + (self.n - self.df[f] + 0.5) / (self.df[f] + 0.5))
                    norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                    score += idf * tf[f] * (self.k1 + 1) / (tf[f] + norm)
            if score > 0:
                scored.append((-score, i))
        scored.sort()
        return [(-s, i) for s, i in scored[:k]]


def _claim_id(claim: Claim, origin: str) -> str:
    """The memory id :func:`_store` gives ``claim`` (equal texts of one kind share it)."""
    return memory_id(origin, claim.kind, claim.content.strip()[:4000])


def _store(home: Path, claims: list[Claim], origin: str) -> tuple[Store, dict[str, set[str]]]:
    """A fresh state dir holding ``claims``; returns the store and gold keys per claim id."""
    keys: dict[str, set[str]] = {}
    store = Store.open(home)
    with store.transaction() as conn:
        for n, claim in enumerate(claims):
            text = claim.content.strip()[:4000]
            mid = _claim_id(claim, origin)
            keys.setdefault(mid, set()).update(claim.keys)
            put_memory(
                conn,
                Memory(
                    id=mid,
                    origin=origin,
                    kind=claim.kind,
                    content=text,
                    content_hash=content_hash(text),
                    created_at=claim.at,
                    updated_at=claim.at,
                    source_id=f"{n:024x}",
                    evidence=Evidence(basis="summary", method="model", source_id=f"{n:024x}", at=claim.at),
                ),
            )
    store.close()
    return Store.open_readonly(home), keys


@dataclass
class Answer:
    """memevo's answer to one question without the lexical lead, and the lead it had (if any)."""

    question: Question
    base: list[set[str]]
    lead: dict | None
    lead_keys: set[str]


class Run:
    """Tallies per split and system (and, with ``why``, memevo's reasons for BM25-found misses)."""

    def __init__(self, fraction: float, why: bool, undated: bool = False) -> None:
        self.fraction = fraction
        self.why = why
        self.undated = undated
        self.tallies: dict[str, dict[str, Tally]] = {}
        self.reasons: dict[str, Counter[str]] = {}
        self.answers: list[Answer] = []

    def _add(self, q: Question, system: str, returned: list[set[str]], seconds: float = 0.0) -> None:
        for split in q.splits:
            self.tallies.setdefault(split, {s: Tally() for s in SYSTEMS})[system].add(returned, q.gold, seconds)

    def conversations(self, conversations: Iterable[Conversation], name: str) -> None:
        with tempfile.TemporaryDirectory(prefix=f"memevo-bench-{name}-") as tmp:
            for n, conv in enumerate(conversations):
                if self.undated:
                    conv = undated(conv)
                origin = f"/bench/{name}/{n}"
                store, keys = _store(Path(tmp) / f"c{n}", conv.claims, origin)
                ids = [_claim_id(c, origin) for c in conv.claims]
                bm25 = BM25([c.content for c in conv.claims])
                for q in conv.questions:
                    started = time.perf_counter()
                    if len(q.texts) == 1:
                        result = service.recall(store.conn, q.texts[0][:2048], now=q.now)
                    else:
                        result = service.turn_recall(store.conn, q.texts, now=q.now, session_is_fresh=False)
                    returned = [keys[c.memory_id] for c in result.claims]
                    self._add(q, "memevo", returned, time.perf_counter() - started)
                    found = result.diagnostics.get("lead")
                    lead_keys = keys.get(found["id"], set()) if found else set()
                    base = [] if found and found["taken"] else returned
                    self.answers.append(Answer(q, base, found, lead_keys))
                    top = bm25.scored(" ".join(q.texts))
                    self._add(q, "bm25_top3", [conv.claims[i].keys for _, i in top])
                    kept = [i for s, i in top if s >= self.fraction * top[0][0]]
                    self._add(q, "bm25_rel", [conv.claims[i].keys for i in kept])
                    if self.why:
                        self._explain(store, q, result, top, conv, ids)
                store.close()

    def _explain(
        self,
        store: Store,
        q: Question,
        result: service.RecallResult,
        top: list[tuple[float, int]],
        conv: Conversation,
        ids: list[str],
    ) -> None:
        """For each gold claim BM25's top 3 held and memevo did not return: the reason."""
        returned = {c.memory_id for c in result.claims}
        for _, i in top:
            mid = ids[i]
            if not conv.claims[i].keys & q.gold or mid in returned:
                continue
            verdict = service.explain_claim(store.conn, q.texts[-1][:2048], mid, context=q.texts[:-1], now=q.now)
            for split in q.splits:
                self.reasons.setdefault(split, Counter())[verdict["reason"] or "selected"] += 1

    def results(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for split, systems in self.tallies.items():
            out[split] = {system: t.row() for system, t in systems.items()}
            if self.why:
                out[split]["memevo_misses_bm25_found"] = dict(self.reasons.get(split, Counter()).most_common())
        return out


# ``--undated``: every claim stored at one moment and every question asked a minute later,
# as `memevo import` stores lines without ``created_at`` and `memevo recall --batch` then asks
# them (how the acceptance runs measure): nothing ages, nothing is dormant.
UNDATED_AT = 1_800_000_000.0


def undated(conv: Conversation) -> Conversation:
    """``conv`` with every claim stored at :data:`UNDATED_AT` and asked a minute later."""
    claims = [Claim(c.content, UNDATED_AT, c.kind, c.keys) for c in conv.claims]
    questions = [Question(q.texts, q.gold, UNDATED_AT + 60, q.splits) for q in conv.questions]
    return Conversation(claims, questions)


def measure(args: argparse.Namespace, wanted: set[str]) -> Run:
    """One run of every wanted benchmark."""
    run = Run(args.bm25_fraction, args.why, getattr(args, "undated", False))
    if "locomo" in wanted:
        run.conversations(locomo(args.eval_dir), "locomo")
    if "memdaily" in wanted:
        run.conversations(memdaily(args.eval_dir), "memdaily")
    if "madial" in wanted:
        for lang in ("ch", "en"):
            run.conversations([madial(args.eval_dir, lang)], f"madial-{lang}")
    if "devmembench" in wanted:
        run.conversations([devmembench(args.eval_dir)], "devmembench")
    return run
