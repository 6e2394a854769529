"""Claims scored exactly, by id: a batch the postings offered (:mod:`.engine`), or one claim
named whether or not they offered it (``explain --claim``, the second claim of a pair:
:mod:`.pairs`).
"""

from __future__ import annotations

from memory_core.recall.candidates import Retrieval, add_postings, origin_masks
from memory_core.recall.index import probe_postings, read_docs
from memory_core.recall.rank import Candidate
from memory_core.recall.scoring import length_factor
from memory_core.store.engines.dbapi import DbConn


def score(conn: DbConn, r: Retrieval, ids: list[str]) -> list[Candidate]:
    """The given claims scored exactly: every gate, their origin's words, their length."""
    features = list(r.scorer.weights)
    docs = read_docs(conn, ids)
    by_origin: dict[str, dict[str, int]] = {}
    scored = []
    judge = r.judge
    for memory_id in ids:
        doc = docs.get(memory_id)
        if doc is None:
            continue
        found = r.masks[memory_id]
        origin_bits = origin_masks(doc.origin, r.headers, features, by_origin)
        if origin_bits:
            found = dict(found)
            for feature, bit in origin_bits.items():
                found[feature] = found.get(feature, 0) | bit
        e = judge(found)
        scored.append(
            Candidate(
                doc,
                length_factor(doc.feature_count) * e.raw,
                e.matched,
                e.context_matched,
                e.reason,
                e.alternatives,
                e.complete,
                coverage=e.coverage,
                firm=e.firm,
            )
        )
    return scored


def named(conn: DbConn, r: Retrieval, memory_id: str) -> list[Candidate]:
    """Score one named claim exactly, whether or not the postings offered it as a candidate."""
    for feature in r.scorer.weights:
        if r.headers.document_frequency.get(feature, 0) > 0:
            add_postings(r.masks, probe_postings(conn, feature, [memory_id]), feature, create=True)
    r.masks.setdefault(memory_id, {})
    return score(conn, r, [memory_id])
