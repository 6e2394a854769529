"""The quality benchmark's `--why` explains the very claim BM25 returned."""

from __future__ import annotations

from bench.eval_sets import DAY, Claim, Conversation, Question
from bench.recall_quality import Run


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
