"""A later change of a chosen fact joins the answer to a question asking what holds now."""

from __future__ import annotations

import pytest

from cli.commands.recall_cmd import _render_claim
from memory_core.recall.service import explain_claim, recall
from memory_core.text.changes import states_change
from tests.support.recalled import ids
from tests.support.times import DAY, NOW


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("Actually let's drop the cache TTL to 10 seconds, warehouse staff complained.", True),
        ("Quick update: we moved the book club to the second Tuesday.", True),
        ("Celery keeps dropping tasks: switch the inventory-service to Dramatiq with Redis.", True),
        ("We replaced SQLAlchemy with Tortoise ORM last sprint.", True),
        ("The staging database is no longer reset on Mondays.", True),
        ("读书会改到每月第二个周二了。", True),
        ("以后都用pnpm，不再用npm。", True),
        ("医生让我少喝咖啡，我现在早上改喝绿茶了。", True),
        ("上个月我们搬到了上海徐汇。", True),
        ("Stock levels are cached in Redis for 30 seconds.", False),
        ("We deploy to Fly.io from the main branch.", False),
        ("I moved here in 2019 and love it.", False),
        ("我每天早上喝一杯美式。", False),
        ("这篇文章我改了三遍。", False),
    ],
)
def test_texts_stating_a_change(text: str, change: bool) -> None:
    assert states_change(text) is change


def cache_claims(add):
    return {
        "first": add("Stock levels are cached in Redis for 30 seconds under the key stock:{sku}.", at=NOW - 20 * DAY),
        "change": add(
            "Actually let's drop the cache TTL to 10 seconds, warehouse staff complained about stale numbers.",
            at=NOW - 5 * DAY,
        ),
        "other": add("The product images are served from the CDN with a long cache lifetime.", at=NOW - 3 * DAY),
    }


def test_what_holds_now_includes_the_later_change(add, reader) -> None:
    claims = cache_claims(add)
    question = "How long are stock levels cached now?"
    assert ids(recall(reader.conn, question, now=NOW)) == [claims["first"].id, claims["change"].id]
    verdict = explain_claim(reader.conn, question, claims["change"].id, now=NOW)
    assert verdict["selected"] is True and verdict["updates"] == claims["first"].id
    assert "as a later change of claim" in _render_claim(verdict)[0]
    # A newer claim sharing the word but stating no change is no update of it.
    assert claims["other"].id not in ids(recall(reader.conn, question, now=NOW))


def test_a_question_not_asking_what_holds_now_is_answered_as_before(add, reader) -> None:
    claims = cache_claims(add)
    assert ids(recall(reader.conn, "How long are stock levels cached?", now=NOW)) == [claims["first"].id]


def test_an_older_change_is_no_update(add, reader) -> None:
    add("Actually let's drop the cache TTL to 10 seconds for the stock levels.", at=NOW - 30 * DAY)
    first = add("Stock levels are cached in Redis for 30 seconds under the key stock:{sku}.", at=NOW - 5 * DAY)
    assert ids(recall(reader.conn, "How long are stock levels cached now?", now=NOW))[0] == first.id


def test_the_newest_change_among_tied_claims_tells_what_holds_now(add, reader) -> None:
    for n, text in enumerate(
        (
            "The ecommerce-api uses SQLAlchemy as its ORM with async sessions.",
            "Alembic runs the migrations for the ecommerce-api ORM models.",
            "The ecommerce-api ORM models live in app/models.py.",
            "Keep the ORM queries of the ecommerce-api out of the route handlers.",
            "The ecommerce-api closes its ORM session in a dependency with yield.",
        )
    ):
        add(text, at=NOW - (30 - n) * DAY)
    switch = add("Got it: switching the ecommerce-api to Tortoise ORM, with Aerich for migrations.", at=NOW - 10 * DAY)
    # Too many claims tie on the ORM to pick one; asked what holds now, the newest change does.
    assert ids(recall(reader.conn, "What ORM is currently used in the ecommerce-api?", now=NOW)) == [switch.id]
    verdict = explain_claim(reader.conn, "What ORM is currently used in the ecommerce-api?", switch.id, now=NOW)
    assert verdict["updates"] == "tied"
    assert "newest change among claims tied" in _render_claim(verdict)[0]
    assert ids(recall(reader.conn, "What ORM is used in the ecommerce-api?", now=NOW)) != [switch.id]
