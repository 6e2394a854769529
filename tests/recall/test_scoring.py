"""Relevance arithmetic and gates on hand-made matches (no database)."""

from __future__ import annotations

import math

import pytest

from memory_core.recall.query_plan import build_plan, plan_query
from memory_core.recall.scoring import (
    ALIAS,
    BODY,
    ORIGIN,
    QUOTE,
    PlanScorer,
    feature_weight,
    field_strength,
    length_factor,
)


def test_feature_weight() -> None:
    assert feature_weight(9, 99) == pytest.approx(1 + 1.5 * math.log(100 / 10))
    assert feature_weight(99, 99) == pytest.approx(1.0)  # held by every claim: as light as an unseen word
    assert feature_weight(0, 99) == 1.0  # unseen: 1, not the highest weight
    assert feature_weight(9, 99, literal=True) == pytest.approx(2 * (1 + 1.5 * math.log(10)))
    assert feature_weight(0, 99, literal=True) == 2.0


def test_field_factors() -> None:
    assert field_strength(BODY) == 1.0
    assert field_strength(ALIAS) == 0.8
    assert field_strength(QUOTE) == 0.25
    assert field_strength(ORIGIN) == 0.2
    assert field_strength(ALIAS | QUOTE) == 0.8
    assert field_strength(0) == 0.0


def test_length_factor() -> None:
    assert length_factor(0) == 1.0
    assert length_factor(12) == 1.0
    assert length_factor(24) == pytest.approx(0.9)
    assert length_factor(10_000) == pytest.approx(0.8, abs=1e-3)


def scorer(query: str | list[str], df: dict[str, int], total: int = 100) -> PlanScorer:
    plan = build_plan(query) if isinstance(query, list) else plan_query(query)
    return PlanScorer(plan, df, total)


def test_raw_relevance_sums_weighted_fields() -> None:
    s = scorer("sqlite timeout", {"sqlite": 9, "~timeout": 4})
    w_sqlite, w_timeout = s.weights["sqlite"], s.weights["~timeout"]
    e = s.evaluate({"sqlite": BODY, "~timeout": ALIAS}, 30)
    assert e.reason is None
    assert e.raw == pytest.approx(length_factor(30) * (w_sqlite + 0.8 * w_timeout))


def test_context_counts_at_035_and_cannot_replace_focus() -> None:
    s = scorer(["SQLite", "auth?"], {"sqlite": 9, "~auth": 9})
    both = s.evaluate({"sqlite": BODY, "~auth": BODY}, 5)
    assert both.reason is None
    assert both.raw == pytest.approx(s.weights["~auth"] + 0.35 * s.weights["sqlite"])
    assert s.evaluate({"sqlite": BODY}, 5).reason == "no_focus_match"
    assert s.evaluate({"~auth": BODY}, 5).reason == "context_subject_missing"


def test_concept_context_needs_sixty_percent() -> None:
    s = scorer(["database backups", "timeout?"], {"~database": 20, "~backup": 20, "~timeout": 5})
    assert s.evaluate({"~timeout": BODY, "~database": BODY}, 5).reason == "context_subject_missing"
    assert s.evaluate({"~timeout": BODY, "~database": BODY, "~backup": BODY}, 5).reason is None


def test_coverage_threshold() -> None:
    s = scorer("alpha beta gamma", {"alpha": 1, "beta": 50, "gamma": 50})
    # alpha alone carries well over 45% of the weight but is only one of three features.
    assert s.evaluate({"alpha": BODY}, 5).reason == "too_few_matches"
    assert s.evaluate({"beta": BODY, "gamma": BODY}, 5).reason == "focus_coverage"
    assert s.evaluate({"alpha": BODY, "beta": BODY}, 5).reason is None


def test_literals_must_all_match_and_weigh_double() -> None:
    s = scorer("deploy.sh in /srv/app", {"deploy.sh": 3, "/srv/app": 3})
    assert s.weights["deploy.sh"] == pytest.approx(2 * feature_weight(3, 100))
    assert s.evaluate({"deploy.sh": BODY}, 5).reason == "literal_missing"
    assert s.evaluate({"deploy.sh": BODY, "/srv/app": ORIGIN}, 5).reason is None


def test_quoted_question_and_origin_cannot_qualify_alone() -> None:
    s = scorer("redis port", {"redi": 3, "~port": 3})
    assert s.evaluate({"redi": QUOTE, "~port": QUOTE}, 5).reason == "quoted_question_only"
    assert s.evaluate({"redi": ORIGIN}, 5).reason == "no_qualifying_match"


def test_generic_words_cannot_qualify() -> None:
    s = scorer("project config", {"~project": 3, "~config": 3})
    assert s.evaluate({"~project": BODY, "~config": BODY}, 5).reason == "no_qualifying_match"


def test_short_named_attribute_rule() -> None:
    s = scorer("SQLite auth?", {"sqlite": 2, "~auth": 40})
    assert s.named_attribute is not None
    assert s.evaluate({"sqlite": BODY}, 5).reason == "named_attribute_missing"
    assert s.evaluate({"~auth": BODY, "sqlite": BODY}, 5).reason is None
    # The subject may come from the origin name; the attribute may not.
    assert s.evaluate({"~auth": BODY, "sqlite": ORIGIN}, 5).reason is None
    assert s.evaluate({"sqlite": BODY, "~auth": ORIGIN}, 5).reason == "named_attribute_missing"
    # Generic status words are not mandatory attributes; numbers are not subjects.
    assert scorer("SQLite status?", {"sqlite": 2}).named_attribute is None
    assert scorer("5433 port?", {"~port": 2}).named_attribute is None
    assert scorer("sqlite postgres redis kafka port", {}).named_attribute is None


def test_unknown_words_block_a_single_match() -> None:
    s = scorer("zyxwv threads", {"thread": 3})
    assert s.evaluate({"thread": BODY}, 5).reason == "unknown_words"


def test_a_word_no_claim_holds_counts_as_one_light_word() -> None:
    # "zyxwv", "qwfp" ... are held by no claim: each counts as one word of weight 1.
    one = scorer("worker threads zyxwv", {"worker": 3, "thread": 3})
    w = one.weights["worker"]
    both = {"worker": BODY, "thread": BODY}
    assert one.coverage(both) == pytest.approx(2 * w / (2 * w + 1))
    assert one.evaluate(both, 5).reason is None
    unknown = " ".join(f"zq{letter}xv" for letter in "abcdefghijklmnop")
    many = scorer(f"worker threads {unknown}", {"worker": 3, "thread": 3})
    assert many.coverage(both) == pytest.approx(2 * w / (2 * w + 16))
    assert many.evaluate(both, 5).reason == "focus_coverage"


def test_unknown_written_out_word_still_blocks_a_lone_match() -> None:
    s = scorer("zyxwv threads", {"thread": 3})
    assert s.evaluate({"thread": BODY}, 5).reason == "unknown_words"
    # A Chinese segment no claim holds is phrasing more often than a name: it does not block.
    zh = scorer("表姐干点什么", {"表姐": 3})
    assert zh.evaluate({"表姐": BODY}, 5).reason is None


def test_three_units_need_two_matches_only_counting_units_some_claim_holds() -> None:
    held = scorer("alpha beta gamma", {"alpha": 1, "beta": 50, "gamma": 50})
    assert held.evaluate({"alpha": BODY}, 5).reason == "too_few_matches"
    # gamma is held by no claim: two units remain, but an unknown word blocks a lone match.
    unheld = scorer("alpha beta gamma", {"alpha": 1, "beta": 50})
    assert unheld.evaluate({"alpha": BODY}, 5).reason == "unknown_words"


def test_a_bigram_over_a_function_character_at_a_segment_edge_is_not_the_subject() -> None:
    # "表妹有多高": 多高 asks the height, the segment is 表妹有 -> 表妹, 妹有.
    s = scorer("我表妹有多高来着？", {"表妹": 4, "妹有": 1, "~height": 4})
    assert [t.feature for t in s.focus] == ["表妹", "妹有", "~height", "=height"]
    assert s.evaluate({"表妹": BODY, "~height": BODY}, 5).reason is None
    assert s.evaluate({"表妹": BODY, "~height": BODY}, 5).complete


def test_a_locative_at_a_segments_front_is_a_words_first_character() -> None:
    # "在上海举行": the segment is 上海举行 -> 上海, 海举, 举行. A locative follows its noun, so
    # 上 at the front is the city's first character: 上海 counts, and a claim holding it alone
    # ("…的地点是上海") matches the whole segment the store knows.
    s = scorer("有几个活动都是在上海举行的呀？", {"活动": 1, "上海": 4})
    place = next(u for u in s.focus_units if any(t.feature == "上海" for t in u.terms))
    assert [t.feature for t in place.core] == ["上海", "海举", "举行"]
    assert place.weight == s.weights["上海"]
    # Other function characters at the front still are grammar: 去 of "去看眼科" (go and see).
    go = scorer("我上次去看眼科是什么时候？", {"去看": 3})
    seeing = next(u for u in go.focus_units if any(t.feature == "眼科" for t in u.terms))
    assert "去看" not in [t.feature for t in seeing.core] and seeing.weight == 0


def test_any_one_asked_attribute_answers_a_short_named_question() -> None:
    s = scorer("舅舅的单位叫什么名字？", {"舅舅": 1, "~employer": 30, "~name": 30})
    assert s.named_attribute is not None
    assert s.evaluate({"舅舅": BODY, "~employer": BODY}, 5).reason is None
    one = scorer("舅舅的单位？", {"舅舅": 1, "~employer": 30})
    assert one.evaluate({"舅舅": BODY}, 5).reason == "named_attribute_missing"


def test_complement_answers_the_open_part() -> None:
    s = scorer("billing job host port", {"bill": 2, "~job": 2, "~host": 2, "~port": 5})
    open_part = frozenset({"~port"})
    assert s.complement({"~port": BODY}, open_part) == pytest.approx(s.weights["~port"])
    assert s.complement({"~port": QUOTE}, open_part) == 0.0
    assert s.complement({"bill": BODY}, open_part) == 0.0


def test_common_words_the_answer_does_not_repeat_cost_little() -> None:
    # Two rare words matched; ten words nearly every claim holds are not. Each of those
    # weighs about as little as a word no claim holds, so they do not sink the match
    # (with the rarity counted once, 1 + log, they did: coverage 0.43).
    common = "garden kitchen window table chair lamp river mountain paper pencil"
    s = scorer(f"worker threads {common}", {"worker": 3, "thread": 3} | {f: 90 for f in _features(common)})
    both = {"worker": BODY, "thread": BODY}
    assert s.coverage(both) == pytest.approx(0.5, abs=0.01)
    assert s.evaluate(both, 5).reason is None
    # One rare word is not enough beside them.
    assert s.evaluate({"worker": BODY, "garden": BODY}, 5).reason == "focus_coverage"


def _features(text: str) -> list[str]:
    return [t.feature for t in plan_query(text).focus]


def test_background_words_support_coverage_up_to_half_the_gate() -> None:
    plan = build_plan(["mom squeezes orange juice on sunday", "pancakes coffee toast butter jam"])
    assert [t.feature for t in plan.background] == ["~mother", "squeez", "orang", "juic", "sundai"]
    frequency = {
        f: 5 for f in ("pancak", "coffe", "toast", "butter", "jam", "~mother", "squeez", "orang", "juic", "sundai")
    }
    scorer = PlanScorer(plan, frequency, 100)
    every_earlier_word = {f: BODY for f in ("~mother", "squeez", "orang", "juic", "sundai")}
    # One of five equal words is 20 %: the earlier words add at most 22.5 % (half the gate).
    lifted = scorer.coverage({"pancak": BODY, **every_earlier_word})
    assert lifted == pytest.approx(0.2 + 0.225)
    assert scorer.evaluate({"pancak": BODY, **every_earlier_word}, 10).reason == "focus_coverage"
    # Two of five (40 %) with one earlier word (0.35 x one word's weight = 7 %) pass.
    assert scorer.coverage({"pancak": BODY, "coffe": BODY, "orang": BODY}) == pytest.approx(0.4 + 0.07)
    # Without a focus match the earlier words count for nothing, and never score.
    assert scorer.coverage(every_earlier_word) == 0.0
    assert scorer.evaluate(every_earlier_word, 10).reason == "no_focus_match"
    assert scorer.evaluate({"pancak": BODY, "coffe": BODY, "orang": BODY}, 10).raw == pytest.approx(
        scorer.evaluate({"pancak": BODY, "coffe": BODY}, 10).raw
    )
