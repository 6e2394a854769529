"""The lexical lead: when no claim passes the gates, one far ahead of the rest is taken."""

from __future__ import annotations

from cli.commands.recall_cmd import _render_claim, _render_diagnostics
from memory_core.recall import lead
from memory_core.recall.diagnostics import lead_text
from memory_core.recall.lead import LEAD_MIN_COVERAGE, LEAD_RATIO, find
from memory_core.recall.rank import Candidate
from memory_core.recall.service import explain_claim, recall
from tests.recall.test_ranking import doc
from tests.support.times import NOW, T0


def cand(
    memory_id: str,
    raw: float,
    reason: str = "focus_coverage",
    coverage: float = 0.42,
    firm: str | None = None,
    **extra,
) -> Candidate:
    return Candidate(doc(memory_id, **extra), raw, ("a",), (), excluded=reason, coverage=coverage, firm=firm)


def test_a_claim_far_ahead_is_taken() -> None:
    found = find([cand("b", 1.0), cand("a", LEAD_RATIO * 1.0 + 0.01)], now=NOW, include_dormant=False)
    assert found is not None and found.taken
    assert found.candidate.doc.memory_id == "a" and found.gate == "focus_coverage"


def test_a_close_second_means_no_lead() -> None:
    found = find([cand("a", 1.25), cand("b", 1.0)], now=NOW, include_dormant=False)
    assert found is not None and not found.taken and found.ratio == 1.25


def test_the_second_is_the_next_distinct_content() -> None:
    # Two copies of one content are one claim to the ranking: the lead is over the next text.
    same = [cand("a", 2.0, content_hash="h"), cand("a2", 2.0, content_hash="h"), cand("b", 1.0)]
    found = find(same, now=NOW, include_dormant=False)
    assert found is not None and found.ratio == 2.0 and found.taken


def test_a_lone_candidate_leads_if_it_covers_enough() -> None:
    assert find([cand("a", 1.0)], now=NOW, include_dormant=False).taken
    weak = find([cand("a", 1.0, coverage=LEAD_MIN_COVERAGE - 0.01)], now=NOW, include_dormant=False)
    assert weak is not None and not weak.taken


def test_firm_gates_dormant_and_unjudged_claims_are_never_a_lead() -> None:
    for reason in lead.FIRM_REASONS - lead.UNRANKED:
        found = find([cand("a", 3.0, reason), cand("b", 1.0)], now=NOW, include_dormant=False)
        assert found is not None and found.candidate.doc.memory_id == "a" and not found.taken, reason
    # A claim recall never judged (explain --claim scored it) is not ranked at all.
    for reason in lead.UNRANKED:
        found = find([cand("a", 3.0, reason), cand("b", 1.0)], now=NOW, include_dormant=False)
        assert found is not None and found.candidate.doc.memory_id == "b", reason
    # A dormant claim is out of sight when recall leaves dormant claims out: it is not the
    # lead, and it does not stand in the way of the awake claim behind it either.
    old = [cand("a", 3.0, clock_at=T0 - 400 * 86_400.0), cand("b", 1.0)]
    awake = find(old, now=NOW, include_dormant=False)
    assert awake is not None and awake.candidate.doc.memory_id == "b" and awake.ratio == float("inf")
    assert awake.taken
    with_dormant = find(old, now=NOW, include_dormant=True)
    assert with_dormant is not None and with_dormant.candidate.doc.memory_id == "a" and with_dormant.taken
    assert find(old[:1], now=NOW, include_dormant=False) is None


def test_a_firm_gate_after_a_soft_one_still_bars_the_lead() -> None:
    # The claim's first failure is coverage (a lead may overrule that), but it also lacks the
    # subject a short question names: another subject's attribute is no answer.
    found = find([cand("a", 3.0, firm="named_subject_missing"), cand("b", 1.0)], now=NOW, include_dormant=False)
    assert found is not None and found.candidate.doc.memory_id == "a"
    assert not found.eligible and not found.taken
    assert found.as_dict()["gate"] == "focus_coverage" and found.as_dict()["firm"] == "named_subject_missing"
    text = lead_text(found)
    assert "not taken" in text and "a gate a lead cannot overrule" in text
    assert "a short question about a named subject: the claim does not name it" in text


def test_another_subjects_attribute_is_no_lead(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "我的手机的品牌是华为。",
            "我的手机的颜色是黑色。",
            "我的自行车是朋友送的。",
            "我的自行车是蓝色的。",
            "我的笔记本电脑是联想的。",
        )
    ]
    # The phone's claim states a brand by the word and the laptop's by its maker's name (华为
    # and 联想 are brands); the question names the bicycle, which both lack: neither is an
    # answer, nor a lead. The bicycle's two claims tie on its name and state no brand, so
    # nothing is taken.
    query = "我的自行车是什么牌子？"
    result = recall(reader.conn, query, now=NOW)
    assert result.claims == []
    lead = result.diagnostics["lead"]
    assert lead["id"] in (claims[2].id, claims[3].id)
    assert not lead["taken"]
    for other in (claims[0], claims[4]):
        verdict = explain_claim(reader.conn, query, other.id, now=NOW)
        assert not verdict["selected"]
        assert verdict["reason"] in ("named_subject_missing", "focus_coverage")


def test_nothing_matched_means_no_lead() -> None:
    assert find([], now=NOW, include_dormant=False) is None
    assert find([cand("a", 2.0, "no_focus_match")], now=NOW, include_dormant=False) is None


def test_the_verdict_says_why_in_words() -> None:
    taken = find([cand("a", 2.0), cand("b", 1.0)], now=NOW, include_dormant=False)
    assert taken is not None
    text = lead_text(taken)
    assert "2.00x the next claim" in text and "failed one (it matches too small a share" in text
    assert taken.as_dict() == {
        "id": "a",
        "ratio": 2.0,
        "coverage": 0.42,
        "gate": "focus_coverage",
        "firm": None,
        "eligible": True,
        "taken": True,
    }
    close = find([cand("a", 1.1), cand("b", 1.0)], now=NOW, include_dormant=False)
    assert close is not None and "not taken" in lead_text(close)


NOTES = [
    "The zephyr gauge drifts after calibration on cold mornings",
    "Lunch with the ops team moved to Thursday",
    "The harbor crane uses a hydraulic pump",
    "Quarterly audit template lives in the wiki",
    "ops team rotates on-call weekly",
    "the cold storage unit alarm fired twice",
]


def test_recall_takes_the_lead_and_explain_says_why(add, reader) -> None:
    claims = [add(text) for text in NOTES]
    # The gauge note answers less of this question than the coverage gate asks (0.43 of its
    # weight), but it leads every other note by 1.5x: taken, and explained as the lead.
    query = "why does the zephyr gauge drift during the quarterly audit of harbor storage?"
    result = recall(reader.conn, query, now=NOW)
    assert [c.memory_id for c in result.claims] == [claims[0].id]
    assert result.diagnostics["lead"]["taken"] and result.diagnostics["lead"]["gate"] == "focus_coverage"
    verdict = explain_claim(reader.conn, query, claims[0].id, now=NOW)
    assert verdict["selected"] and "leads the lexical ranking (1.50x" in verdict["lead"]
    rendered = "\n".join(_render_claim(verdict))
    assert "selected (as the lexical lead)" in rendered
    assert f"lead:       {claims[0].id} taken (no claim passed the gates; it failed focus_coverage, scores 1.50x" in (
        _render_diagnostics(result.diagnostics)
    )
    # Two more words the notes lack: 0.375 of the question, below LEAD_MIN_COVERAGE.
    weaker = "why does the zephyr gauge drift in the quarterly audit of the harbor storage pumps?"
    result = recall(reader.conn, weaker, now=NOW)
    assert result.claims == [] and not result.diagnostics["lead"]["taken"]
    assert "not taken" in explain_claim(reader.conn, weaker, claims[0].id, now=NOW)["lead"]


def test_explain_agrees_with_recall_on_every_claim(add, reader) -> None:
    # Recall never ranks a claim whose only match is a word most claims hold (its list is not
    # read for candidates); explain --claim scores it anyway, and it must not become a lead
    # there, "selected" in explain alone.
    claims = [
        add(text)
        for text in (
            "我的同事只读到初中。",
            "我同事的老家在湖南长沙。",
            "我同事身高165厘米。",
            "我同事42岁了。",
            "我的同事喜欢爬山。",
            "我姑姑读的是本科。",
            "我堂弟读的是本科。",
            "我的邻居只读到初中。",
        )
    ]
    for query in ("同事是哪个学校毕业的？", "同事是哪里人？", "同事是做什么工作的？"):
        chosen = {c.memory_id for c in recall(reader.conn, query, now=NOW).claims}
        for claim in claims:
            verdict = explain_claim(reader.conn, query, claim.id, now=NOW)
            assert verdict["selected"] == (claim.id in chosen), (query, claim.content, verdict)
