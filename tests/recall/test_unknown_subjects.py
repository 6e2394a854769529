"""A question naming a subject no claim mentions gets nothing (issue 30, item 3), even when it
shares the attribute word with another subject's claim: with two-word subjects and an extra
generic word ("the Kafka broker port number", "the Traefik reverse proxy"), in English and
Chinese, and after the right claim was marked incorrect."""

from __future__ import annotations

import pytest

from memory_core.controls.feedback import give_feedback
from memory_core.recall.service import recall, turn_recall
from tests.support.recalled import ids
from tests.support.times import NOW

UNKNOWN = [
    "what is the Kafka broker port number?",
    "which port number does the billing gateway server use?",
    "what port does the Traefik reverse proxy listen on?",
    "where does the Traefik reverse proxy config live?",
    "where is the Grafana dashboard server config file?",
    "what is the nginx server port?",
    "which port does Alice's billing service use?",
    "Kafka 代理的端口号是多少？",
    "计费网关服务器用哪个端口？",
    "Traefik 反向代理的配置文件在哪里？",
]


@pytest.fixture
def known(add) -> dict[str, str]:
    return {
        "redis": add("Redis listens on port 6380 in development").id,
        "widget": add("The widget API server listens on port 8081").id,
        "cache": add("The SQLite cache database file lives at /var/cache/widget/cache.db").id,
        "proxy": add("The nginx reverse proxy config lives in /etc/nginx/conf.d/widget.conf").id,
        "orders": add("订单服务监听 8081 端口").id,
        "proxy_zh": add("nginx 反向代理的配置文件在 /etc/nginx/conf.d 目录").id,
    }


@pytest.mark.parametrize("question", UNKNOWN)
def test_a_question_about_an_unknown_subject_gets_nothing(reader, known, question: str) -> None:
    result = recall(reader.conn, question, now=NOW)
    assert ids(result) == [], (question, result.diagnostics.get("plan"))
    result = turn_recall(reader.conn, [question], now=NOW, session_is_fresh=True)
    assert ids(result) == [], question


def test_the_known_subjects_are_still_answered(reader, known) -> None:
    assert ids(recall(reader.conn, "what is the Redis port number?", now=NOW)) == [known["redis"]]
    assert ids(recall(reader.conn, "which port does the widget API server use?", now=NOW)) == [known["widget"]]
    assert ids(recall(reader.conn, "where does the nginx reverse proxy config live?", now=NOW)) == [known["proxy"]]
    assert ids(recall(reader.conn, "订单服务的端口号是多少？", now=NOW)) == [known["orders"]]


def test_an_answer_marked_incorrect_is_not_replaced_by_another_subjects(store, reader, known) -> None:
    with store.transaction() as conn:
        give_feedback(conn, known["widget"], "incorrect", NOW - 60)
        give_feedback(conn, known["orders"], "incorrect", NOW - 60)
    for question in (
        "which port does the widget API server use?",
        "what is the widget API server port number?",
        "订单服务的端口号是多少？",
        "订单服务用哪个端口？",
    ):
        result = recall(reader.conn, question, now=NOW)
        assert ids(result) == [], (question, result.diagnostics.get("candidates"))


def test_a_thing_pointed_at_in_chinese_is_a_subject_that_must_be_known(add, reader) -> None:
    cafe = add("我最常去的咖啡馆叫蓝山咖啡，在南山区科技园附近。").id
    add("我经常去的图书馆是深圳图书馆，周一闭馆。")
    # 那家 points at a thing: no claim holds 游泳馆, so the café and the library, sharing
    # only "常去", are no answer to where it is.
    assert recall(reader.conn, "我常去的那家游泳馆在哪？", now=NOW).claims == []
    assert cafe in ids(recall(reader.conn, "我常去的那家咖啡馆在哪？", now=NOW))
    # 那个 and 那位 open as often a clause describing a person: what follows them is no name.
    add("我的上司只上了专科，老家是重庆的。")
    assert ids(recall(reader.conn, "那个只上了专科的家伙，他老家是哪儿的啊？", now=NOW))


def test_a_thing_of_the_users_own_no_claim_names_is_unknown(add, reader) -> None:
    shoes = add("最后在迪卡侬买了一双灰色的跑鞋，花了四百多，穿着特别舒服。").id
    add("长时间走路可以看看亚瑟士的GEL系列，或者新百伦的1080，缓震都很好。")
    # 我买的 picks out a thing of the user's: no claim holds 吉他, so the brands of shoes are
    # no answer to the guitar's; the shoes' brand is still found.
    assert recall(reader.conn, "我买的吉他是什么牌子？", now=NOW).claims == []
    assert shoes in ids(recall(reader.conn, "我买的跑鞋是什么牌子？", now=NOW))
