"""Recall speed: in-process lookups at 1k, 10k and 100k claims, and a whole `memevo recall`
process at 10k claims against a bare `python -c 'import sqlite3'`.

    python bench/recall_speed.py [--sizes 1000,10000,100000] [--queries 300] [--runs 20]
                                 [--corpus distinct|copies|synthetic] [--cache DIR]

``--corpus distinct`` (the default when ``../shared/eval`` is there): claims that all differ,
from the development sets of all three benchmarks, English and Chinese, varied in their
people, places, numbers and projects (``bench/distinct_store.py``); queries are the sets'
own questions (LoCoMo categories 1-4, MemDaily, MADial), drawn at random. ``copies``: the
LoCoMo observations repeated word for word, one copy per project, asked the LoCoMo
questions. Each size reports its claims and bodies (distinct indexed contents).
``--cache DIR`` keeps the built stores for the next run (shared with ``bench/hooks.py``).

``--corpus synthetic``: claims are synthetic sentences over a Zipf-distributed vocabulary (a few very common
words, a long tail of rare ones), with some Chinese text, paths and concept words mixed
in, spread over 20 origins and four kinds. Queries take two to four words from a random
claim (so they mix common and rare words), plus a share that matches nothing. Timings
are medians after one warm-up pass; the process comparison interleaves the two commands.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import bench_env, memevo_exe, summary, time_command  # noqa: E402
from bench.distinct_store import summary_claim  # noqa: E402
from memory_core.recall.service import recall  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from memory_core.store.tables.memories import put_memory  # noqa: E402

VOCABULARY = 40_000
ZIPF = 1.05
KINDS = ("fact", "preference", "decision", "project_state")
CONCEPTS = ("database", "port", "timeout", "config", "deploy", "test", "server", "cache", "version", "path")
CHINESE = ("数据库", "端口", "部署", "测试", "缓存", "服务器", "配置", "日志", "用户", "版本", "项目", "接口")
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]


def make_vocabulary(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Corpus:
    """A deterministic generator of claim sentences and queries."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = make_vocabulary(self.rng)
        weights = [1 / (rank + 1) ** ZIPF for rank in range(len(self.words))]
        total = sum(weights)
        self.cumulative = []
        running = 0.0
        for w in weights:
            running += w / total
            self.cumulative.append(running)

    def word(self) -> str:
        x = self.rng.random()
        lo, hi = 0, len(self.cumulative) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.cumulative[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return self.words[lo]

    def sentence(self, n: int) -> str:
        rng = self.rng
        parts = [self.word() for _ in range(rng.randint(6, 18))]
        if rng.random() < 0.3:
            parts.insert(rng.randrange(len(parts)), rng.choice(CONCEPTS))
        if rng.random() < 0.15:
            parts.append("".join(rng.sample(CHINESE, 2)))
        if rng.random() < 0.1:
            parts.append(f"/srv/{self.word()}/{self.word()}.py")
        if rng.random() < 0.2:
            parts.append(str(rng.randint(1000, 65000)))
        return " ".join(parts).capitalize() + f" (#{n})"

    def query(self, text: str) -> str:
        rng = self.rng
        if rng.random() < 0.1:
            return " ".join(rng.choice(SYLLABLES) * 3 for _ in range(2))  # matches nothing
        words = [w for w in text.split() if w.isalpha() and w.islower()]
        return " ".join(rng.sample(words, min(len(words), rng.randint(2, 4))))


def build(home: Path, corpus: Corpus, size: int, now: float) -> list[str]:
    """A state dir with ``size`` claims; returns the claim texts (for drawing queries)."""
    texts = []
    store = Store.open(home)
    batch = 2_000
    for start in range(0, size, batch):
        with store.transaction() as conn:
            for n in range(start, min(size, start + batch)):
                text = corpus.sentence(n)
                texts.append(text)
                origin = f"/work/project-{n % 20}"
                kind = KINDS[n % 4]
                at = now - corpus.rng.uniform(0, 5) * 86_400
                put_memory(conn, summary_claim(origin, kind, text, at, f"{n:024x}"))
    store.close()
    return texts


def time_in_process(home: Path, queries: list[str], now: float) -> dict[str, float]:
    store = Store.open_readonly(home)
    try:
        for q in queries[:20]:  # warm the page cache and the stemmer cache
            recall(store.conn, q, now=now)
        samples = []
        answered = 0
        for q in queries:
            started = time.perf_counter()
            result = recall(store.conn, q, now=now)
            samples.append((time.perf_counter() - started) * 1000)
            answered += bool(result.claims)
    finally:
        store.close()
    out = summary(samples)
    out["mean_ms"] = round(statistics.fmean(samples), 2)
    out["answered_share"] = round(answered / len(queries), 3)
    return out


def store_and_queries(
    corpus_name: str, size: int, tmp: Path, cache: Path | None, now: float, count: int
) -> tuple[Path, list[str], dict[str, object], float]:
    """The built state dir of ``size`` claims, the queries to ask it, what it holds and the
    time its claims were aged against."""
    info: dict[str, object] = {}
    if corpus_name == "synthetic":
        corpus = Corpus()
        home = tmp / f"h{size}"
        started = time.perf_counter()
        texts = build(home, corpus, size, now)
        info["build_s"] = round(time.perf_counter() - started, 1)
        rng = random.Random(11)
        return home, [corpus.query(rng.choice(texts)) for _ in range(count)], info, now
    built, seconds, built_at = distinct_store.built_home(cache or tmp / "cache", corpus_name, size)
    home = tmp / f"h{size}"
    home.mkdir(parents=True)
    for name in ("memory.db", "memory.db-wal"):
        if (built / name).exists():
            shutil.copy2(built / name, home / name)
    info.update(distinct_store.counts(home))
    info["build_s"] = round(seconds, 1)
    pool = distinct_store.questions()
    if corpus_name == "copies":
        locomo = {q for conv in distinct_store.locomo(distinct_store.EVAL) for qs in conv.questions for q in qs.texts}
        pool = [q for q in pool if q in locomo]
    rng = random.Random(11)
    return home, [rng.choice(pool) for _ in range(count)], info, built_at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--runs", type=int, default=20, help="process runs of each command")
    real = (distinct_store.EVAL / "locomo-dev.json").exists()
    parser.add_argument(
        "--corpus", choices=("distinct", "copies", "synthetic"), default="distinct" if real else "synthetic"
    )
    parser.add_argument("--cache", type=Path, help="keep the built stores here for later runs")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    now = time.time()
    results: dict[str, object] = {"corpus": args.corpus}
    with tempfile.TemporaryDirectory(prefix="memevo-recall-speed-") as tmp:
        homes = {}
        for size in sizes:
            home, queries, info, built_at = store_and_queries(
                args.corpus, size, Path(tmp), args.cache, now, args.queries
            )
            homes[size] = (home, queries)
            # A cached store is asked at the time it was built plus the time since this run began.
            timing: dict[str, object] = dict(time_in_process(home, queries, built_at + (time.time() - now)))
            timing.update(info)
            timing["db_mb"] = round((home / "memory.db").stat().st_size / 1e6, 1)
            results[f"in_process_{size}"] = timing
        if 10_000 in sizes and 100_000 in sizes:
            small = results["in_process_10000"]["median_ms"]  # type: ignore[index]
            large = results["in_process_100000"]["median_ms"]  # type: ignore[index]
            results["ratio_100k_to_10k"] = round(large / small, 2)
        if 10_000 in sizes:
            home, queries = homes[10_000]
            env = bench_env(home)
            # An installed package has its bytecode compiled; this environment may forbid
            # writing it, which would make every run recompile memevo from source.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            bare, whole = [], []
            for i in range(args.runs + 2):
                b = time_command([sys.executable, "-c", "import sqlite3"], env=env)
                w = time_command([memevo_exe(), "recall", queries[i % len(queries)]], env=env)
                if i > 1:  # the first pairs only warm the disk and bytecode caches
                    bare.append(b)
                    whole.append(w)
            results["process_bare_python"] = summary(bare)
            results["process_memevo_recall_10k"] = summary(whole)
            results["process_extra_ms"] = round(statistics.median(whole) - statistics.median(bare), 1)
            version = [time_command([memevo_exe(), "--version"], env=env) for _ in range(args.runs)]
            results["process_memevo_version"] = summary(version)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
