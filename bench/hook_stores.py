"""The stores ``bench/hooks.py`` builds (and keeps under ``--cache``) and the questions it asks
them: the sets' own questions that print a digest at every size, or those given."""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

from bench import distinct_store
from bench.recall_speed import Corpus, build
from memory_core.store.schema.index_version import INDEX_VERSION
from memory_core.store.schema.migrations import SCHEMA_VERSION


def locomo() -> tuple[list[str], list[str]] | None:
    """The observations and the questions (categories 1-4) of the LoCoMo dev set."""
    if not (distinct_store.EVAL / "locomo-dev.json").exists():
        return None
    return distinct_store.base_texts()["locomo"], _locomo_questions()


def _locomo_questions() -> list[str]:
    return [
        q.texts[-1]
        for conv in distinct_store.locomo(distinct_store.EVAL)
        for q in conv.questions
        if "LoCoMo categories 1-4" in q.splits
    ]


def built_home(cache: Path, size: int, now: float, realistic: tuple[list[str], list[str]] | None) -> tuple[Path, float]:
    """The copies store (or, without the eval data, the synthetic one) of ``size`` claims under
    ``cache`` (built once); returns it and the build seconds (``bench/gateway_hooks.py``)."""
    home, info = built_store(cache, "copies" if realistic else "synthetic", size, now)
    return home, float(info["build_s"])


def built_store(cache: Path, store: str, size: int, now: float) -> tuple[Path, dict[str, Any]]:
    """A built store under ``cache`` (built once) and what it holds: claims, distinct contents,
    bodies, the build seconds (0 when cached) and the file's size."""
    if store == "synthetic":
        home = cache / f"synthetic-{size}-v{INDEX_VERSION}-s{SCHEMA_VERSION}"
        seconds = 0.0
        if not (home / "memory.db").exists():
            shutil.rmtree(home, ignore_errors=True)
            started = time.perf_counter()
            build(home, Corpus(), size, now)
            seconds = time.perf_counter() - started
    else:
        home, seconds, _ = distinct_store.built_home(cache, store, size)
    info: dict[str, Any] = dict(distinct_store.counts(home))
    info["build_s"] = round(seconds, 1)
    info["db_mb"] = round((home / "memory.db").stat().st_size / 1e6, 1)
    return home, info


def copy_home(home: Path, into: Path) -> Path:
    into.mkdir(parents=True)
    for name in ("memory.db", "memory.db-wal"):
        if (home / name).exists():
            shutil.copy2(home / name, into / name)
    return into


def matching_questions(questions: list[str], homes: Path | list[Path], now: float, want: int) -> list[str]:
    """Questions whose turn recall prints a digest at every one of these stores."""
    from memory_core.recall.service import turn_recall
    from memory_core.store.engines.database import Store

    stores = [Store.open_readonly(home) for home in ([homes] if isinstance(homes, Path) else homes)]
    found = []
    try:
        for q in questions:
            if all(turn_recall(store.conn, [q], now=now, session_is_fresh=True).digest for store in stores):
                found.append(q)
                if len(found) == want:
                    break
    finally:
        for store in stores:
            store.close()
    return found


def chosen_questions(
    args: argparse.Namespace, stores: list[str], homes: dict[tuple[str, int], Path], sizes: list[int], now: float
) -> dict[str, list[str]]:
    """The questions each store is asked: given (``--questions``) or found at every size."""
    given: dict[str, list[str]] = {}
    if args.questions:
        data = json.loads(args.questions.read_text(encoding="utf-8"))
        given = data if isinstance(data, dict) else {stores[0]: data}
    out = {}
    for store in stores:
        if store in given:
            out[store] = given[store]
        elif store == "synthetic":
            corpus = Corpus()
            out[store] = [f"what about {corpus.word()} {corpus.word()}?" for _ in range(12)]
        else:
            out[store] = matching_questions(distinct_store.questions(), [homes[store, s] for s in sizes], now, 12)
        if not out[store]:
            raise SystemExit(f"no question prints a digest on the {store} store; pass --questions FILE")
    return out
