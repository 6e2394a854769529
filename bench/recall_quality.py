"""Recall quality on the public development data in ../shared/eval, beside a BM25 top-3 baseline.

    python bench/recall_quality.py [--eval-dir DIR] [--only locomo,memdaily,madial] [--json]

Every conversation gets its own temporary state dir; claims are written through the real
store (so the real index is built) and recalled read-only, exactly as the hook does. The
baseline is a plain Okapi BM25 (k1 1.5, b 0.75) over the *same* tokenizer features,
returning its top 3 for every question.

Reported per dataset and system (micro averages):

* per-evidence recall: gold evidence items found among the returned claims / all gold items;
* precision: returned claims that are gold / all returned claims;
* empty: share of questions answered with nothing (memevo may refuse; BM25 never does);
* hit: share of questions with at least one gold claim returned.

Data sets: LoCoMo observations as claims (one store per conversation; the question alone
is the query); MemDaily (one store per trajectory of user messages; the question is the
query); MADial-Bench zh and en (one store per language holding its memory file; the user
turns before the test turn are the conversation, the last one being the current query).
The data is read where it lies and never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_core.ids import content_hash, memory_id  # noqa: E402
from memory_core.recall.service import recall, turn_recall  # noqa: E402
from memory_core.records import Evidence, Memory  # noqa: E402
from memory_core.store.database import Store  # noqa: E402
from memory_core.store.memories import put_memory  # noqa: E402
from memory_core.text.tokenize import features, query_terms  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_EVAL = REPO.parent / "shared" / "eval"
DAY = 86_400.0


@dataclass
class Tally:
    """Micro-averaged counts for one system on one dataset."""

    questions: int = 0
    gold: int = 0
    found: int = 0
    returned: int = 0
    correct: int = 0
    empty: int = 0
    hits: int = 0
    seconds: float = 0.0

    def add(self, returned: list[set[str]], gold: set[str]) -> None:
        """Score one question: ``returned`` holds the gold keys each returned claim carries."""
        self.questions += 1
        self.gold += len(gold)
        covered = set().union(*returned) if returned else set()
        self.found += len(gold & covered)
        self.returned += len(returned)
        self.correct += sum(1 for keys in returned if keys & gold)
        self.empty += not returned
        self.hits += bool(gold & covered)

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
    """Okapi BM25 over the recall tokenizer's features: the baseline, top-k with no gates."""

    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.tf = [features(d) for d in docs]
        self.lengths = [sum(t.values()) for t in self.tf]
        self.n = len(docs)
        self.avg = sum(self.lengths) / max(1, self.n)
        self.df = Counter(f for t in self.tf for f in t)
        self.k1, self.b = k1, b

    def top(self, query: str, k: int = 3) -> list[int]:
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
        return [i for _, i in scored[:k]]


@dataclass
class Claim:
    content: str
    at: float
    kind: str = "fact"
    keys: set[str] = field(default_factory=set)


@dataclass
class Question:
    texts: list[str]  # user texts, oldest first; the last is the question
    gold: set[str]
    now: float
    label: str = ""


@dataclass
class Conversation:
    claims: list[Claim]
    questions: list[Question]


def _store(home: Path, claims: list[Claim], origin: str) -> tuple[Store, dict[str, set[str]]]:
    """A fresh state dir holding ``claims``; returns the store and gold keys per claim id."""
    keys: dict[str, set[str]] = {}
    store = Store.open(home)
    with store.transaction() as conn:
        for n, claim in enumerate(claims):
            text = claim.content.strip()[:4000]
            mid = memory_id(origin, claim.kind, text)
            keys.setdefault(mid, set()).update(claim.keys)
            put_memory(conn, Memory(
                id=mid, origin=origin, kind=claim.kind, content=text, content_hash=content_hash(text),
                created_at=claim.at, updated_at=claim.at, source_id=f"{n:024x}",
                evidence=Evidence(basis="summary", method="model", source_id=f"{n:024x}", at=claim.at),
            ))
    store.close()
    return Store.open_readonly(home), keys


def run(conversations: Iterable[Conversation], name: str, *, include_dormant_row: bool) -> dict[str, dict]:
    """Both systems over every question of every conversation."""
    tallies = {"memevo": Tally(), "bm25_top3": Tally()}
    if include_dormant_row:
        tallies["memevo_explicit"] = Tally()
    with tempfile.TemporaryDirectory(prefix=f"memevo-bench-{name}-") as tmp:
        for n, conv in enumerate(conversations):
            store, keys = _store(Path(tmp) / f"c{n}", conv.claims, f"/bench/{name}/{n}")
            bm25 = BM25([c.content for c in conv.claims])
            for q in conv.questions:
                started = time.perf_counter()
                if len(q.texts) == 1:
                    result = recall(store.conn, q.texts[0][:2048], now=q.now)
                else:
                    result = turn_recall(store.conn, q.texts, now=q.now, session_is_fresh=False)
                tallies["memevo"].seconds += time.perf_counter() - started
                tallies["memevo"].add([keys[c.memory_id] for c in result.claims], q.gold)
                if include_dormant_row:
                    started = time.perf_counter()
                    explicit = recall(store.conn, q.texts[-1][:2048], context=q.texts[:-1], now=q.now,
                                      include_dormant=True)
                    tallies["memevo_explicit"].seconds += time.perf_counter() - started
                    tallies["memevo_explicit"].add([keys[c.memory_id] for c in explicit.claims], q.gold)
                started = time.perf_counter()
                top = bm25.top(" ".join(q.texts))
                tallies["bm25_top3"].seconds += time.perf_counter() - started
                tallies["bm25_top3"].add([conv.claims[i].keys for i in top], q.gold)
            store.close()
    return {system: t.row() for system, t in tallies.items()}


def _ids(value: object) -> list[str]:
    return [p for p in re.split(r"[\s,;\[\]'\"]+", str(value)) if p]


def locomo(eval_dir: Path) -> Iterator[Conversation]:
    """Observations (one claim each, keyed by dialog id) and every QA item."""
    for sample in json.loads((eval_dir / "locomo-dev.json").read_text(encoding="utf-8")):
        conv = sample["conversation"]
        claims: list[Claim] = []
        times = []
        for key, speakers in sample["observation"].items():
            session = key.removesuffix("_observation")
            stamp = datetime.strptime(conv[f"{session}_date_time"], "%I:%M %p on %d %B, %Y")
            at = stamp.replace(tzinfo=UTC).timestamp()
            times.append(at)
            for items in speakers.values():
                for text, dia in items:
                    claims.append(Claim(text, at, keys=set(_ids(dia))))
        now = max(times) + DAY
        questions = [Question([qa["question"]], {e for x in qa["evidence"] for e in _ids(x)}, now,
                              f"category {qa['category']}")
                     for qa in sample["qa"]]
        yield Conversation(claims, questions)


_MEMDAILY_TIME = re.compile(r"(\d{4})年(\d{2})月(\d{2})日 \S+ (\d{2}):(\d{2})")
# Each message ends with its envelope "(消息地点 <place>, 消息时间 <time>)": where and when it
# was sent. Capture would keep that as the source's time, not as claim text, so it becomes
# the claim's timestamp here (for both systems alike).
_MEMDAILY_ENVELOPE = re.compile(r"\s*\(消息地点[^()]*\)\s*$")


def _zh_time(text: str) -> float | None:
    match = _MEMDAILY_TIME.search(text)
    if not match:
        return None
    y, mo, d, h, mi = (int(g) for g in match.groups())
    return datetime(y, mo, d, h, mi, tzinfo=UTC).timestamp()


def memdaily(eval_dir: Path) -> Iterator[tuple[str, Conversation]]:
    """Each trajectory of user messages is one conversation with one question."""
    data = json.loads((eval_dir / "memdaily-dev.json").read_text(encoding="utf-8"))
    for kind, block in data.items():
        for event in block["events"]:
            messages = event["message_list"]
            claims = [Claim(_MEMDAILY_ENVELOPE.sub("", m), _zh_time(m) or 0.0, keys={str(i)})
                      for i, m in enumerate(messages)]
            qa = event["QA"]
            now = _zh_time(qa.get("time", "")) or max(c.at for c in claims) + DAY
            yield kind, Conversation(claims, [Question([qa["question"]], {str(i) for i in qa["target_step_id"]},
                                                       now, kind)])


def madial(eval_dir: Path, lang: str) -> Conversation:
    """The language's whole memory file as claims; each test dialogue's user turns as the query."""
    folder = eval_dir / "madial-dev" / lang
    tag = "zh" if lang == "ch" else lang
    claims: list[Claim] = []
    for line in (folder / f"MADial-Bench-{tag}-memory.json").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        [(key, item)] = json.loads(line).items()
        at = datetime.strptime(item["time"], "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
        kind = "preference" if item.get("scene") in ("喜好类", "Preferences") else "fact"
        claims.append(Claim(item["event"], at, kind, {str(key)}))
    now = max(c.at for c in claims) + DAY
    questions = []
    for line in (folder / f"MADial-Bench-{tag}-dialogue-dev.json").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        dialogue = json.loads(line)
        turn = dialogue["test-turn"][0]
        users = [re.sub(r"^<[^>]+>:\s*", "", t).strip().strip('"')
                 for t in dialogue["dialogue"][1:turn] if not t.startswith("<Assistant>")]
        questions.append(Question(users[-6:], {str(i) for i in dialogue["relevant-id"]}, now))
    return Conversation(claims, questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL)
    parser.add_argument("--only", default="locomo,memdaily,madial")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    results: dict[str, dict] = {}
    started = time.perf_counter()
    if "locomo" in wanted:
        results["LoCoMo (en)"] = run(locomo(args.eval_dir), "locomo", include_dormant_row=True)
    if "memdaily" in wanted:
        by_kind: dict[str, list[Conversation]] = {}
        for kind, conv in memdaily(args.eval_dir):
            by_kind.setdefault(kind, []).append(conv)
        for kind, convs in by_kind.items():
            results[f"MemDaily {kind} (zh)"] = run(convs, f"memdaily-{kind}", include_dormant_row=False)
    if "madial" in wanted:
        for lang, label in (("ch", "zh"), ("en", "en")):
            results[f"MADial ({label})"] = run([madial(args.eval_dir, lang)], f"madial-{lang}",
                                               include_dormant_row=True)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"{'dataset':<28} {'system':<16} {'n':>5} {'recall':>7} {'prec':>6} {'empty':>6} {'hit':>6} "
          f"{'per-ans':>7} {'ms/q':>6}")
    for dataset, systems in results.items():
        for system, r in systems.items():
            print(f"{dataset:<28} {system:<16} {r['questions']:>5} {r['recall']:>7.3f} {r['precision']:>6.3f} "
                  f"{r['empty']:>6.3f} {r['hit']:>6.3f} {r['claims_per_answer']:>7.2f} {r['ms_per_question']:>6.2f}")
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
