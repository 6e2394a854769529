"""The candidates' upper bounds are the weighted field strengths of what their postings hold,
and the candidates come best bound first, ties in id order."""

from __future__ import annotations

import random

from memory_core.recall.candidates import BestFirst, origin_masks, retrieve
from memory_core.recall.engine import evaluate_plan
from memory_core.recall.index import probe_postings
from memory_core.recall.query_plan import build_plan
from memory_core.recall.scoring import CONTEXT_WEIGHT, FIELD_BITS, field_strength
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory
from tests.support.times import NOW

WORDS = ["deploy", "staging", "runner", "node", "port", "cache", "billing", "release", "schema", "backup"]


def test_bounds_sum_what_each_feature_adds_where_it_was_found(store: Store, reader) -> None:
    rng = random.Random(11)
    with store.transaction() as conn:
        for n in range(120):
            words = rng.sample(WORDS, rng.randint(2, 5))
            body = " ".join(words) + f" item{n}"
            if rng.random() < 0.3:
                body += f' "what {rng.choice(WORDS)} do we use?"'  # a quoted question
            aliases = rng.sample(WORDS, 2) if rng.random() < 0.4 else []
            put_memory(conn, make_memory(body, origin=f"/work/{rng.choice(WORDS)}", search_terms=aliases))
    plans = [
        build_plan(["which node version does the staging runner need?"]),
        build_plan(["the billing schema", "and its backup?"]),  # context from an earlier turn
        build_plan(["deploy release cache port"]),
    ]
    seen_bits: set[int] = set()
    for plan in plans:
        r = retrieve(reader.conn, plan)
        assert r.order, plan
        context = {t.feature for t in r.scorer.context}
        for memory_id in r.order:
            expected = 0.0
            for feature, bits in r.masks[memory_id].items():
                seen_bits.add(bits)
                factor = (CONTEXT_WEIGHT if feature in context else 1.0) * r.scorer.weights[feature]
                expected += factor * field_strength(bits)
            assert r.upper[memory_id] == expected
        assert list(r.order) == sorted(r.upper, key=lambda m: (-r.upper[m], m))
    assert seen_bits - {1}, "aliases and quoted questions were found too"


def test_best_first_reads_like_a_sorted_list() -> None:
    rng = random.Random(3)
    upper = {f"m{n:03d}": float(rng.choice((1.0, 2.5, 2.5, 4.0, 0.0))) for n in range(200)}
    expected = sorted(upper, key=lambda m: (-upper[m], m))
    for start, stop in ((0, 1), (0, 48), (40, 60), (150, 400), (0, 200)):
        order = BestFirst(upper)
        assert order[start:stop] == expected[start:stop]
        assert len(order) == len(expected)
        assert [order[i] for i in (0, 77, -1)] == [expected[i] for i in (0, 77, -1)]
    for part in (slice(None, -1), slice(-5, None), slice(10, 60, 7), slice(None, None, -1), slice(50, 5, -3)):
        assert BestFirst(upper)[part] == expected[part]
    assert list(BestFirst(upper)) == expected
    assert list(BestFirst({})) == []


def test_scored_relevance_is_the_scorers_own(store: Store, reader) -> None:
    """Patterns are judged once and the length factor applied per claim: the same raw
    relevance, gate and coverage as evaluating each claim on its own."""
    rng = random.Random(5)
    with store.transaction() as conn:
        for n in range(150):
            words = rng.sample(WORDS, rng.randint(1, 4)) + [f"pad{n}x{i}" for i in range(rng.randint(0, 20))]
            put_memory(conn, make_memory(" ".join(words), origin=f"/work/{rng.choice(WORDS)}"))
    for query in ("deploy staging", "node port cache release", "the billing backup schema?", "runner"):
        plan = build_plan([query])
        outcome = evaluate_plan(reader.conn, plan, now=NOW, limit=10, include_dormant=True, narrow=False)
        r = retrieve(reader.conn, plan)
        features = list(r.scorer.weights)
        assert outcome.candidates
        for c in outcome.candidates:
            found = {}
            for feature in features:
                for _, field in probe_postings(reader.conn, feature, [c.doc.memory_id]):
                    found[feature] = found.get(feature, 0) | FIELD_BITS[field]
            for feature, bit in origin_masks(c.doc.origin, r.headers, features).items():
                found[feature] = found.get(feature, 0) | bit
            e = r.scorer.evaluate(found, c.doc.feature_count)
            assert (c.raw, c.matched, c.coverage, c.complete) == (e.raw, e.matched, e.coverage, e.complete)


def test_every_claim_passing_with_the_conversations_background_is_enumerated(store: Store, reader) -> None:
    """Candidates are enumerated down to the least focus weight a passing claim can match,
    which the conversation's earlier words lower: no claim they lift past the coverage gate
    is left unread."""
    rng = random.Random(7)
    with store.transaction() as conn:
        for n in range(200):
            words = rng.sample(WORDS, rng.randint(1, 6)) + [f"pad{n}x{i}" for i in range(rng.randint(0, 6))]
            put_memory(conn, make_memory(" ".join(words), origin=f"/work/o{n % 3}"))
    lifted = 0
    for _ in range(30):
        earlier = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(rng.randint(1, 3))]
        plan = build_plan([*earlier, " ".join(rng.sample(WORDS, rng.randint(3, 6)))])
        r = retrieve(reader.conn, plan)
        features = list(r.scorer.weights)
        alone = retrieve(reader.conn, plan._replace(background=()))
        ids = [row[0] for row in reader.conn.execute("SELECT memory_id FROM index_docs")]
        for memory_id in ids:
            found: dict[str, int] = {}
            for feature in features:
                for _, field in probe_postings(reader.conn, feature, [memory_id]):
                    found[feature] = found.get(feature, 0) | FIELD_BITS[field]
            if r.scorer.evaluate(found, 1).reason is None:
                assert memory_id in r.masks, (plan, memory_id)
                lifted += alone.scorer.evaluate(found, 1).reason == "focus_coverage"
    assert lifted, "some claims passed only with the background"
