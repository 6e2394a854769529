"""Complementary evidence: the claim that answers what the chosen claims left open.

Some questions join two facts. "The event held in Hangzhou: what is its main content?" is
answered by one claim placing an event in Hangzhou and another giving that event's
content; "the 61-year-old: where does he work?" by "my uncle is 61" and "my uncle works in
Guangzhou". The second claim shares little with the question, so no gate lets it through
on its own, and it must not: "works in Guangzhou" is no answer about somebody else. What
makes it an answer is that it speaks about the same thing as the claim already chosen.

So after selection, when fewer than three claims were chosen and they leave part of the
question's focus unmatched (features some claim holds, one of them qualifying), one more
claim may be added that

* answers that open part: it matches at least ``MIN_COMPLEMENT_COVERAGE`` (half) of its
  weight in its body or aliases, one of those features qualifying
  (:meth:`~memory_core.recall.scoring.PlanScorer.complement`);
* is about the same thing as the chosen claims: at least :data:`MIN_BRIDGE_SHARE` of its
  body features other than the open ones also occur in a chosen claim
  (:data:`MIN_CONCEPT_BRIDGE_SHARE` when what it answers is a concept such as a port, a
  job or a birthday: one recognised kind of fact about a subject). The shared features
  are the bridge: an event's or a person's name, a project, a host. An attribute concept
  shared by both ("port", "host") is no shared subject and does not count;
* is awake (unless dormant claims were asked for) and not a same-origin duplicate.

Among those, the one answering most of the open part wins, then the one sharing most,
then freshness and evidence. Only the postings of the chosen claims' own features are read,
and only those held by at most :data:`MAX_BRIDGE_DF` claims (a specific name, not a common
word: in a store of 300 claims or more, also no more than 10 % of them), so the work stays
bounded however large the store is.

The engine also uses :func:`find` for pairs: when no claim passes the gates alone, the best
claim answering part of the question and its complement may be chosen together
(``pairs.add_pair``).
"""

from __future__ import annotations

from memory_core.recall import index
from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.candidates import Retrieval
from memory_core.recall.query_units import value_groups
from memory_core.recall.rank import Candidate, rank_score
from memory_core.recall.scoring import (
    BODY,
    COMMON_MIN_CLAIMS,
    COMMON_SHARE,
    EVIDENCE_FIELDS,
    FIELD_BITS,
)
from memory_core.store.engines.dbapi import DbConn
from memory_core.text.concepts import BY_FEATURE
from memory_core.text.query_features import concept_forms
from memory_core.text.tokenize import features, normalize
from memory_core.text.value_classes import VALUE_CLASSES, is_value_class

MIN_BRIDGE_SHARE = 0.3
MIN_CONCEPT_BRIDGE_SHARE = 0.15
# Bridge features held by more claims than this are common words, not names: not read.
MAX_BRIDGE_DF = 64
# At most this many of a chosen claim's rarest own features are read as bridges.
MAX_BRIDGE_FEATURES = 24
# At most this many claims sharing a bridge are judged.
MAX_COMPLEMENT_CANDIDATES = 64


def open_part(r: Retrieval, chosen: list[Candidate]) -> frozenset[str]:
    """The (seen) focus features no chosen claim matched, if one of them could qualify a claim."""
    scorer = r.scorer
    matched = {f for c in chosen for f in c.matched}
    # An attribute and its value class are one thing asked two ways ("什么颜色": the word
    # 颜色 or a colour): a chosen claim holding either answers both.
    values = value_groups(scorer.focus)
    answered = {t.group for t in scorer.focus if t.group in values and t.feature in matched}
    features = frozenset(
        t.feature
        for t in scorer.focus
        if t.feature in scorer.seen and t.feature not in matched and t.group not in answered
    )
    return features if features & scorer.qualifying else frozenset()


def stated_before(content: str, features: frozenset[str]) -> str:
    """``content`` (normalized) up to where it first states one of the attribute concepts or
    value classes in ``features`` (all of it when it states none): a claim's subject, before
    the attribute and its value ("特斯拉Model 3的*颜色*是红色", "the Honda I rented is *red*")."""
    text = normalize(content)
    cut = len(text)
    for feature in sorted(features):
        if is_value_class(feature):
            patterns = [held.compiled for value, held, _asked in VALUE_CLASSES.values() if value == feature]
        elif feature in BY_FEATURE:
            patterns = [concept_forms(feature)]
        else:
            continue
        for pattern in patterns:
            found = pattern.search(text)
            if found is not None:
                cut = min(cut, found.start())
    return text[:cut]


def _attribute(feature: str) -> bool:
    concept = BY_FEATURE.get(feature)
    return concept is not None and concept.attribute


def own_features(conn: DbConn, memory_id: str) -> set[str]:
    """A claim's body and alias features (an indexed lookup by id)."""
    rows = conn.execute("SELECT feature, field FROM postings WHERE memory_id=?", (memory_id,)).fetchall()
    return {feature for feature, field in rows if field in ("body", "alias")}


def find(conn: DbConn, r: Retrieval, chosen: list[Candidate], *, now: float, include_dormant: bool) -> str | None:
    """The id of the complementary claim for ``chosen``, or ``None``."""
    open_features = open_part(r, chosen)
    if not chosen or not open_features:
        return None
    scorer = r.scorer
    bridge: set[str] = set()
    for c in chosen:
        bridge |= own_features(conn, c.doc.memory_id)
    # A shared attribute ("port", "status") is no shared subject.
    bridge = {f for f in bridge - open_features if not _attribute(f) and not is_value_class(f)}
    if not bridge:
        return None
    headers = index.read_headers(conn, sorted(bridge))
    df = headers.document_frequency
    common = COMMON_SHARE * headers.total if headers.total >= COMMON_MIN_CLAIMS else headers.total
    usable = sorted((f for f in bridge if 1 < df.get(f, 0) <= min(MAX_BRIDGE_DF, common)), key=lambda f: (df[f], f))[
        :MAX_BRIDGE_FEATURES
    ]
    taken = {c.doc.memory_id for c in chosen}
    shared: dict[str, int] = {}
    for feature in usable:
        holders = {m for m, field in index.read_posting_list(conn, feature) if field in ("body", "alias")}
        for memory_id in holders - taken:
            shared[memory_id] = shared.get(memory_id, 0) + 1
    if not shared:
        return None
    ids = sorted(shared, key=lambda m: (-shared[m], m))[:MAX_COMPLEMENT_CANDIDATES]
    masks: dict[str, dict[str, int]] = {m: {} for m in ids}
    for feature in sorted(open_features):
        for memory_id, field in index.probe_postings(conn, feature, ids):
            masks[memory_id][feature] = masks[memory_id].get(feature, 0) | FIELD_BITS[field]
    docs = index.read_docs(conn, ids)
    seen_content = {(c.doc.origin, c.doc.content_hash) for c in chosen}
    concepts = {t.feature for t in scorer.focus if t.feature in open_features and t.kind == "concept" and not t.generic}
    eligible: list[tuple[float, float, float, str]] = []
    for memory_id in ids:
        doc = docs.get(memory_id)
        found = masks[memory_id]
        answered = scorer.complement(found, open_features)
        if doc is None or not answered or (doc.origin, doc.content_hash) in seen_content:
            continue
        # (a value class is no word of the claim: feature_count leaves it out)
        own = doc.feature_count - sum(1 for f in open_features if found.get(f, 0) & BODY and not is_value_class(f))
        share = shared[memory_id] / max(1, own)
        gives_concept = any(found.get(f, 0) & EVIDENCE_FIELDS for f in concepts)
        if share < (MIN_CONCEPT_BRIDGE_SHARE if gives_concept else MIN_BRIDGE_SHARE):
            continue
        pinned = bool(doc.pinned)
        if not include_dormant and is_dormant(doc.kind, doc.clock_at, now, pinned=pinned):
            continue
        fresh = freshness(doc.kind, doc.clock_at, now, pinned=pinned)
        eligible.append((answered, share, rank_score(1.0, fresh, doc.priority, doc.utility, doc.accuracy), memory_id))
    if not eligible:
        return None
    eligible.sort(key=lambda e: (-e[0], -e[1], -e[2], e[3]))
    return eligible[0][3]


# A claim naming a question's subject but not the attribute asked ("my car is a Tesla Model
# 3") anchors a pair only with a claim about what it says the subject is: more than this
# share of the words before the partner states the attribute (its own subject) are the
# anchor's.
MIN_IDENTITY_SHARE = 0.5


def identifies(conn: DbConn, r: Retrieval, anchor: Candidate, partner_id: str) -> bool:
    """Whether the partner speaks of what the anchor says the question's subject is: "特斯拉
    Model 3的颜色是红色" of "我的车是一辆特斯拉Model 3" and "实验小学的地址是…" of "我女儿的学校
    是北京市海淀区实验小学", not "the Honda I rented in Berlin is red" of "my car is a Tesla I
    bought in Berlin" (a shared city is no shared thing) nor "my friend's Tesla is white" of
    "my car is a Tesla". The partner's subject is what it says before the attribute asked or a
    value of it (its own words after that are the value)."""
    from memory_core.store.tables.memories import get_memory

    partner = get_memory(conn, partner_id)
    if partner is None:
        return False
    plan = r.scorer.plan
    asked = {t.feature for t in (*plan.focus, *plan.context)}
    subject = {
        f
        for f in features(stated_before(partner.content, open_part(r, [anchor])))
        if f not in asked and not is_value_class(f)
    }
    if not subject:
        return False
    shared = subject & own_features(conn, anchor.doc.memory_id)
    return len(shared) > MIN_IDENTITY_SHARE * len(subject)
