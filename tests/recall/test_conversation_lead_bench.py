"""The conversation-lead bench (bench/conversation_lead.py): the claims ranked by the rarer
words of the whole conversation, through the real index, and its leave-one-language-out
choice."""

from __future__ import annotations

from pathlib import Path

from bench.conversation_lead import leave_one_out, ranked_over_conversation
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed

NOW = 1_700_000_000.0


def store_with(home: Path, *contents: tuple[str, float]) -> Store:
    store = Store.open(home)
    seed(store, *(make_memory(text, at=at) for text, at in contents))
    return store


def test_the_claim_the_earlier_turns_point_to_leads(home: Path) -> None:
    store = store_with(
        home,
        ("Bart tried the mango ice cream at the harbour kiosk and loved it", NOW - 60),
        ("Bart likes the harbour at night", NOW - 60),
        ("The kiosk sells newspapers", NOW - 60),
    )
    texts = ["We walked along the harbour yesterday", "There was a kiosk selling mango ice cream", "What now?"]
    ranked = ranked_over_conversation(store.conn, texts, NOW, min_shared=2)
    assert ranked[0][1] == make_memory("Bart tried the mango ice cream at the harbour kiosk and loved it").id
    assert ranked[0][2] >= 4 and ranked[0][0] > ranked[1][0]
    # Only claims sharing at least ``min_shared`` of the rarer words are ranked at all.
    assert [m for _, m, _ in ranked_over_conversation(store.conn, texts, NOW, min_shared=5)] == [ranked[0][1]]
    # One message has no conversation: nothing to rank beyond the question's own lead.
    assert ranked_over_conversation(store.conn, texts[1:2], NOW, min_shared=2) == []
    store.close()


def test_a_dormant_claim_neither_leads_nor_stands_in_the_way(home: Path) -> None:
    old = NOW - 400 * 86_400
    store = store_with(
        home,
        ("Bart tried the mango ice cream at the harbour kiosk", old),
        ("The harbour kiosk closes at nine", NOW - 60),
    )
    ranked = ranked_over_conversation(store.conn, ["At the harbour kiosk", "mango ice cream", "And?"], NOW, 2)
    assert [m for _, m, _ in ranked] == [make_memory("The harbour kiosk closes at nine").id]
    store.close()


def figures(hit: float, recall: float, precision: float) -> dict[str, float]:
    return {"hit": hit, "recall": recall, "precision": precision, "empty": 0.0}


def test_each_language_gets_the_choice_the_other_one_makes() -> None:
    bm25 = figures(0.5, 0.2, 0.2)
    # Language A gains most with (2, 1.1); B with (3, 1.1) and loses precision below the goal with (2, 1.1).
    lang_a = {"recall": figures(0.1, 0.05, 0.4), "bm25": bm25, "(2, 1.1)": figures(0.3, 0.1, 0.3)}
    lang_b = {"recall": figures(0.1, 0.05, 0.4), "bm25": bm25, "(2, 1.1)": figures(0.3, 0.1, 0.2)}
    lang_a["(3, 1.1)"] = figures(0.2, 0.07, 0.38)
    lang_b["(3, 1.1)"] = figures(0.2, 0.08, 0.38)
    rows = {mode: {"zh": lang_a, "en": lang_b} for mode in ("dated", "undated")}
    goal = leave_one_out(rows, strict=False)
    assert goal["en"]["choice"] == "(2, 1.1)"  # chosen on zh, which it costs nothing below the goal
    assert goal["en"]["dated"]["precision"] == 0.2  # ... and en pays for it
    assert goal["zh"]["choice"] == "(3, 1.1)"
    # Counting every bit of precision lost: on zh, (3, 1.1) loses as much precision as it
    # gains recall and (2, 1.1) more, so en keeps recall alone; on both, (3, 1.1) gains.
    strict = leave_one_out(rows, strict=True)
    assert strict["en"]["choice"] == "recall" and strict["en"]["dated"] == lang_b["recall"]
    assert strict["both"] == "(3, 1.1)"
