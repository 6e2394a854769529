"""Ranking after the gates: quality factors, ties, cutoff, duplicates and facets."""

from __future__ import annotations

import pytest

from memory_core.recall.index import IndexedDoc
from memory_core.recall.rank import MAX_EQUALLY_RELEVANT, RELATIVE_CUTOFF, Candidate, rank_score, select
from memory_core.recall.service import explain_claim, recall, search
from memory_core.records import Evidence, Feedback, VerdictSlot
from tests.support.times import NOW, T0


def doc(
    memory_id: str,
    *,
    origin: str = "/o",
    kind: str = "fact",
    content_hash: str | None = None,
    updated_at: float = T0,
    clock_at: float | None = None,
    pinned: bool = False,
    priority: int = 1,
    utility: str | None = None,
    accuracy: str | None = None,
) -> IndexedDoc:
    return IndexedDoc(
        memory_id,
        origin,
        kind,
        content_hash or memory_id,
        updated_at,
        updated_at if clock_at is None else clock_at,
        pinned,
        priority,
        "summary",
        "local",
        utility,
        accuracy,
        5,
    )


def cand(d: IndexedDoc, raw: float, matched: tuple[str, ...] = ("a",)) -> Candidate:
    return Candidate(d, raw, matched, ())


def test_rank_formula() -> None:
    assert rank_score(2.0, 0.5, 4, "useful", "accurate") == pytest.approx(2.0 * 0.5 * 1.16 * 1.05 * 1.05)
    assert rank_score(2.0, 1.0, 0, "unhelpful", "incorrect") == pytest.approx(2.0 * 0.9 * 0.5)
    assert rank_score(2.0, 1.0, 0, None, None) == 2.0


def test_relative_cutoff_uses_raw_relevance() -> None:
    strong = cand(doc("a" * 24, priority=0), 4.0, ("x",))
    # A weaker match cannot climb over the cutoff on evidence, feedback or pins.
    weak = cand(doc("b" * 24, priority=4, utility="useful", accuracy="accurate", pinned=True), 2.9, ("y",))
    chosen = select([strong, weak], now=NOW, limit=3)
    assert chosen == [strong] and weak.excluded == "below_relative_cutoff"


def test_relative_cutoff_is_ninety_percent() -> None:
    assert RELATIVE_CUTOFF == 0.9
    best = cand(doc("a" * 24), 4.0, ("x",))
    close = cand(doc("b" * 24), 3.6, ("y",))
    far = cand(doc("c" * 24), 3.5, ("z",))
    assert select([best, close, far], now=NOW, limit=3) == [best, close]
    assert far.excluded == "below_relative_cutoff"


def test_quality_orders_close_matches() -> None:
    plain = cand(doc("a" * 24, priority=1), 4.0, ("x",))
    corrected = cand(doc("b" * 24, priority=4), 3.9, ("y",))
    assert select([plain, corrected], now=NOW, limit=3) == [corrected, plain]


def test_ties_break_by_pin_then_date_then_id() -> None:
    # Equal clocks (hence equal freshness) and equal raw scores: only the tie-breakers differ.
    older = cand(doc("c" * 24, updated_at=T0 - 10, clock_at=NOW), 3.0, ("x",))
    newer = cand(doc("d" * 24, updated_at=T0, clock_at=NOW), 3.0, ("y",))
    low_id = cand(doc("a" * 24, updated_at=T0, clock_at=NOW), 3.0, ("z",))
    pinned = cand(doc("e" * 24, updated_at=T0 - 10, clock_at=NOW, pinned=True), 3.0, ("w",))
    chosen = select([older, newer, low_id, pinned], now=NOW, limit=4)
    assert [c.doc.memory_id[0] for c in chosen] == ["e", "a", "d", "c"]


def test_exact_duplicates_only_within_one_origin() -> None:
    first = cand(doc("a" * 24, origin="/one", content_hash="h"), 3.0, ("x",))
    same = cand(doc("b" * 24, origin="/one", content_hash="h"), 2.9, ("y",))
    elsewhere = cand(doc("c" * 24, origin="/two", content_hash="h"), 3.0, ("z",))
    chosen = select([first, same, elsewhere], now=NOW, limit=3)
    assert {c.doc.memory_id[0] for c in chosen} == {"a", "c"}
    assert same.excluded == "duplicate_content"


def test_facet_redundancy_per_origin_and_kind() -> None:
    fact = cand(doc("a" * 24, kind="fact"), 3.0, ("sqlite", "~port"))
    variant = cand(doc("b" * 24, kind="fact"), 2.9, ("sqlite", "~port"))
    state = cand(doc("c" * 24, kind="project_state"), 2.95, ("sqlite", "~port"))
    other_origin = cand(doc("d" * 24, kind="fact", origin="/elsewhere"), 2.8, ("sqlite", "~port"))
    chosen = select([fact, variant, state, other_origin], now=NOW, limit=3)
    assert {c.doc.memory_id[0] for c in chosen} == {"a", "c", "d"}
    assert variant.excluded == "redundant_facet"


def test_complete_answers_are_never_redundant() -> None:
    # Three claims that each match the whole question (the places of every event in one
    # city) are all answers; a partial match on the same words is one side of it.
    full = [
        Candidate(doc(f"{c}" * 24), 3.0 - n / 100, ("~location", "shenzhen"), (), complete=True)
        for n, c in enumerate("abc")
    ]
    chosen = select(full, now=NOW, limit=3)
    assert chosen == full
    partial = [Candidate(doc(f"{c}" * 24), 3.0 - n / 100, ("shenzhen",), ()) for n, c in enumerate("def")]
    chosen = select(partial, now=NOW, limit=3)
    assert chosen == partial[:1]
    assert [c.excluded for c in partial[1:]] == ["redundant_facet", "redundant_facet"]
    # A strict subset of a better claim's facets is always redundant, complete or not.
    more = Candidate(doc("g" * 24), 3.0, ("~location", "shenzhen", "hall"), (), complete=True)
    fewer = Candidate(doc("h" * 24), 2.95, ("~location", "shenzhen"), ())
    assert select([more, fewer], now=NOW, limit=3) == [more]


def test_limit() -> None:
    many = [cand(doc(f"{i:024x}"), 3.0, (f"f{i}",)) for i in range(4)]
    assert len(select(many, now=NOW, limit=3)) == 3
    assert sum(c.excluded == "over_limit" for c in many) == 1
    listing = [cand(doc(f"{i:024x}"), 3.0, (f"f{i}",)) for i in range(12)]
    assert len(select(listing, now=NOW, limit=10, relative_cutoff=False, facet_redundancy=False)) == 10


def test_more_than_four_equally_relevant_claims_are_ambiguous() -> None:
    assert MAX_EQUALLY_RELEVANT == 4
    # Five claims within the cutoff of the best: the question picks none of them out.
    tied = [cand(doc(f"{i:024x}"), 3.0 - i / 100, (f"f{i}",)) for i in range(5)]
    assert select(tied, now=NOW, limit=3) == []
    assert {c.excluded for c in tied} == {"ambiguous"}
    # Four are still offered (the best three), and a claim below the cutoff does not count.
    four = [cand(doc(f"{i:024x}"), 3.0 - i / 100, (f"f{i}",)) for i in range(4)]
    weak = cand(doc("f" * 24), 2.0, ("g",))
    assert select([*four, weak], now=NOW, limit=3) == four[:3]
    # The same text twice in one origin is one claim; a dormant claim is not offered anyway.
    copies = [cand(doc(f"{i:024x}", content_hash="same" if i > 2 else None), 3.0, (f"f{i}",)) for i in range(6)]
    assert len(select(copies, now=NOW, limit=3)) == 3
    old = [cand(doc(f"{i:024x}", clock_at=NOW - 400 * 86_400), 3.0, (f"f{i}",)) for i in range(3)]
    fresh = [cand(doc(f"{i + 9:024x}"), 3.0, (f"f{i}",)) for i in range(3)]
    assert len(select([*old, *fresh], now=NOW, limit=3)) == 3
    # Origins are counted apart: one answer in each of five projects is five answers.
    projects = [cand(doc(f"{i:024x}", origin=f"/p{i}"), 3.0, (f"f{i}",)) for i in range(5)]
    assert len(select(projects, now=NOW, limit=3)) == 3
    # Alternatives ("A or B") are counted apart.
    sides = [Candidate(doc(f"{i:024x}"), 3.0, (f"f{i}",), (), alternatives=(1 if i < 3 else 2,)) for i in range(6)]
    assert len(select(sides, now=NOW, limit=3)) == 3
    # A listing (``search``) is never ambiguous.
    listing = [cand(doc(f"{i:024x}"), 3.0, (f"f{i}",)) for i in range(8)]
    assert len(select(listing, now=NOW, limit=10, relative_cutoff=False, facet_redundancy=False)) == 8


def test_ambiguous_question_recalls_nothing_but_search_lists_all(add, reader) -> None:
    trips = [
        add(f"Melanie went camping by the {place} with her kids", origin="/chat/melanie")
        for place in ("lake", "forest", "beach", "mountains", "desert")
    ]
    assert recall(reader.conn, "when did Melanie go camping", now=NOW).claims == []
    verdict = explain_claim(reader.conn, "when did Melanie go camping", trips[0].id, now=NOW)
    assert (verdict["reason"], verdict["stage"]) == ("ambiguous", "selection")
    assert len(search(reader.conn, "when did Melanie go camping", now=NOW).claims) == 5
    one = add("Melanie went camping at the lake in June", origin="/chat/melanie")
    result = recall(reader.conn, "when did Melanie go camping in June", now=NOW)
    assert [c.memory_id for c in result.claims] == [one.id]


def test_feedback_and_evidence_through_the_store(add, reader) -> None:
    summary = add("Logs rotate daily at midnight", kind="fact")
    corrected = add(
        "Logs rotate daily at noon",
        kind="fact",
        origin="/work/other",
        evidence=Evidence(basis="manual_correction", method="manual", source_id="m" * 24, at=T0),
    )
    result = recall(reader.conn, "when do logs rotate", now=NOW)
    assert [c.memory_id for c in result.claims] == [corrected.id, summary.id]
    assert result.claims[0].priority == 4 and result.claims[1].priority == 1

    unhelpful = Feedback(utility=VerdictSlot(verdict="unhelpful", source_id="u" * 24, at=T0))
    add("Logs rotate daily at dawn", kind="fact", origin="/work/third", feedback=unhelpful)
    result = recall(reader.conn, "when do logs rotate", now=NOW)
    assert result.claims[-1].utility == 0.9


def test_incorrect_and_inactive_claims_never_recall(add, reader) -> None:
    wrong = Feedback(accuracy=VerdictSlot(verdict="incorrect", source_id="u" * 24, at=T0))
    add("Mailer retries three times", feedback=wrong)
    add("Mailer retries five times", status="conflicted", origin="/work/b")
    add("Mailer retries seven times", status="superseded", origin="/work/c")
    add("Mailer retries nine times", status="forgotten", origin="/work/d")
    for include_dormant in (False, True):
        assert recall(reader.conn, "mailer retries", now=NOW, include_dormant=include_dormant).claims == []
    accurate = Feedback(accuracy=VerdictSlot(verdict="accurate", source_id="u" * 24, at=T0))
    right = add("Mailer retries twice", origin="/work/e", feedback=accurate)
    result = recall(reader.conn, "mailer retries", now=NOW)
    assert [c.memory_id for c in result.claims] == [right.id]
    assert result.claims[0].accuracy == 1.05 and result.claims[0].priority == 4
    assert '"accuracy":"accurate"' in result.digest


def test_the_asked_detail_picks_one_of_many_claims_about_a_person(add, reader) -> None:
    for text in ("我表弟喜欢踢足球", "我表弟在上海工作", "我表弟养了一只猫", "我表弟的家乡在浙江杭州"):
        add(text, origin="/chat")
    age = add("我的表弟今年36岁", origin="/chat")
    # Five claims name the cousin; only the age one answers "how old is he".
    assert [c.memory_id for c in recall(reader.conn, "我表弟现在多大了呀？", now=NOW).claims] == [age.id]
    # Asked only about the cousin, the question picks none of the five out.
    assert recall(reader.conn, "我表弟呢？", now=NOW).claims == []
    assert explain_claim(reader.conn, "我表弟呢？", age.id, now=NOW)["reason"] == "ambiguous"
