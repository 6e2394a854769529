"""Best-first scoring stops early only when it provably changes nothing."""

from __future__ import annotations

import random

import pytest

from memory_core.recall import engine
from memory_core.recall.query_plan import plan_query
from memory_core.recall.service import recall
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory
from tests.support.times import DAY, NOW, T0

WORDS = [f"w{n}" for n in range(60)]


@pytest.fixture
def corpus(store: Store) -> random.Random:
    rng = random.Random(5)
    with store.transaction() as conn:
        for n in range(400):
            # A skewed vocabulary: low-numbered words are common, high-numbered ones rare.
            words = {WORDS[min(int(rng.expovariate(1 / 12)), 59)] for _ in range(rng.randint(3, 9))}
            put_memory(
                conn,
                make_memory(
                    " ".join(sorted(words)) + f" item{n}",
                    origin=f"/work/o{n % 4}",
                    kind=rng.choice(["fact", "decision", "preference", "project_state"]),
                    at=T0 - rng.uniform(0, 3) * DAY,
                    pinned=rng.random() < 0.05,
                ),
            )
    return rng


def test_early_stop_matches_scoring_everything(corpus: random.Random, reader, monkeypatch: pytest.MonkeyPatch) -> None:
    queries = [" ".join(corpus.sample(WORDS[:30], corpus.randint(1, 3))) for _ in range(80)]
    for narrow, limit in ((True, 3), (False, 10)):
        fast = [
            engine.evaluate_plan(reader.conn, plan_query(q), now=NOW, limit=limit, include_dormant=False, narrow=narrow)
            for q in queries
        ]
        with monkeypatch.context() as m:
            m.setattr(engine, "FIRST_BATCH", 10**9)
            m.setattr(engine, "MAX_SCORED", 10**9)
            slow = [
                engine.evaluate_plan(
                    reader.conn, plan_query(q), now=NOW, limit=limit, include_dormant=False, narrow=narrow
                )
                for q in queries
            ]
        for q, a, b in zip(queries, fast, slow, strict=True):
            assert [c.doc.memory_id for c in a.chosen] == [c.doc.memory_id for c in b.chosen], q
        if narrow:  # the relative cutoff is what lets automatic recall stop early
            assert sum(a.scored for a in fast) < sum(b.scored for b in slow)


def test_very_common_words_cannot_qualify(store: Store, reader) -> None:
    with store.transaction() as conn:
        for n in range(320):
            extra = " nginx" if n % 5 == 0 else ""  # in 20% of claims
            put_memory(conn, make_memory(f"Service{n} handles request batch {n}{extra}"))
        put_memory(conn, make_memory("The gateway nginx uses port 8443"))
    assert recall(reader.conn, "nginx", now=NOW).claims == []
    assert len(recall(reader.conn, "nginx gateway", now=NOW).claims) == 1
