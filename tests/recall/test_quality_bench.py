"""The quality benchmark: `--why` explains the very claim BM25 returned; DevMemBench's pieces;
the leave-one-set-out choice."""

from __future__ import annotations

from bench.eval_sets import DAY, Claim, Conversation, Question, pieces
from bench.recall_quality import leave_one_out
from bench.recall_runs import Run


def test_why_explains_the_claim_bm25_returned_not_another_with_its_key() -> None:
    # Two observations of one dialogue turn share its gold key. BM25 finds the first, which
    # recall leaves dormant (one shared word cannot revive it); the second shares no word.
    now = 1_700_000_000.0
    found = Claim("Melanie painted a sunrise over the lake", now - 400 * DAY, keys={"D1:3"})
    other = Claim("Melanie bought green tea", now - DAY, keys={"D1:3"})
    question = Question(["sunrise"], {"D1:3"}, now, ("split",))
    run = Run(0.5, why=True)
    run.conversations([Conversation([found, other], [question])], "why")
    assert run.results()["split"]["memevo_misses_bm25_found"] == {"dormant": 1}


def test_pieces_cut_at_sentence_ends_within_the_bound() -> None:
    text = "First sentence here. Second one! Third? " + "word " * 120 + "\nAfter a break."
    cut = pieces(text, 60)
    assert cut[0] == "First sentence here. Second one! Third?"
    assert all(len(p) <= 60 for p in cut)
    assert cut[-1] == "After a break."
    assert " ".join(cut).split() == text.split()


def test_leave_one_out_reports_each_set_with_the_choice_of_the_others() -> None:
    def figures(recall: float, precision: float = 2.0) -> dict[str, float]:
        return {"recall": recall, "precision": 0.5, "empty": 0.1, "recall_ratio": recall, "precision_ratio": precision}

    # Choice 2 helps A and B a lot and hurts C a little; choice 1 changes nothing.
    each = {
        1.0: {"A": figures(0.5), "B": figures(0.5), "C": figures(0.5)},
        2.0: {"A": figures(0.7), "B": figures(0.7), "C": figures(0.45)},
    }
    report = leave_one_out(each, each[1.0])
    assert report["left_out"]["C"]["choice"] == 2.0 and report["left_out"]["C"]["recall"] == 0.45
    # Left out, A is judged by B and C: B's gain outweighs C's loss.
    assert report["left_out"]["A"]["choice"] == 2.0
    assert report["all"]["choice"] == 2.0
    # Precision lost below the goal costs twice over.
    each[2.0]["A"] = figures(0.7, precision=1.0)
    each[2.0]["B"] = figures(0.7, precision=1.0)
    assert leave_one_out(each, each[1.0])["all"]["choice"] == 1.0
