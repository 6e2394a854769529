"""The candidates' upper bounds are the weighted field strengths of what their postings hold,
and the candidates come best bound first, ties in id order."""

from __future__ import annotations

import random

from memory_core.recall.candidates import retrieve
from memory_core.recall.query_plan import build_plan
from memory_core.recall.scoring import CONTEXT_WEIGHT, field_strength
from memory_core.store.database import Store
from memory_core.store.memories import put_memory
from tests.factories import make_memory

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
        assert r.order == sorted(r.upper, key=lambda m: (-r.upper[m], m))
    assert seen_bits - {1}, "aliases and quoted questions were found too"
