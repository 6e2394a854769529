"""Follow-ups after more ways of stating a task (issue 30, item 4): a verb of need,
obligation or request before the task's verb ("I need to fix …", "We have to look into …",
"Could you check …", "帮我看看 …", "我们来修一下 …", "麻烦排查 …"), then a question with a
pronoun or no subject: the task's object is the subject, as after "Let's fix …". Claims are
written to the real store and recalled read-only, on both backends."""

from __future__ import annotations

import pytest

from memory_core.recall.query_plan import build_plan
from memory_core.recall.service import turn_recall
from tests.support.recalled import ids
from tests.support.times import NOW

EN_OPENINGS = [
    "I need to fix the widget API server",
    "We have to look into the widget API server",
    "Could you check the widget API server",
    "I must fix the widget API server",
    "We should debug the widget API server",
    "You'll have to restart the widget API server",
    "I was asked to repair the widget API server",
    "We've got to migrate the widget API server",
    "I'd like you to profile the widget API server",
    "It is necessary to patch the widget API server",
]
ZH_OPENINGS = [
    "帮我看看订单服务",
    "我们来修一下订单服务",
    "麻烦排查订单服务",
    "我需要修复订单服务",
    "我们得检查一下订单服务",
    "请帮忙排查一下订单服务",
    "你能不能查查订单服务",
    "必须重启订单服务",
    "我要调试订单服务",
]


@pytest.mark.parametrize("opening", EN_OPENINGS)
def test_an_english_follow_up_after_a_stated_task_finds_its_answer(add, reader, opening: str) -> None:
    add("Redis listens on port 6380 in development")
    widget = add("The widget API server listens on port 8081")
    for question in ("which port does it listen on?", "port?"):
        result = turn_recall(reader.conn, [opening, question], now=NOW, session_is_fresh=False)
        assert ids(result) == [widget.id], (opening, question, result.diagnostics.get("plan"))
    plan = build_plan([opening, "which port does it listen on?"])
    assert [t.feature for t in plan.context] == ["widget", "~api", "~server"]


@pytest.mark.parametrize("opening", ZH_OPENINGS)
def test_a_chinese_follow_up_after_a_stated_task_finds_its_answer(add, reader, opening: str) -> None:
    add("支付服务监听 9090 端口")
    orders = add("订单服务监听 8081 端口")
    for question in ("它监听哪个端口？", "端口是多少？"):
        result = turn_recall(reader.conn, [opening, question], now=NOW, session_is_fresh=False)
        assert ids(result) == [orders.id], (opening, question, result.diagnostics.get("plan"))
    plan = build_plan([opening, "端口是多少？"])
    assert [t.feature for t in plan.context] == ["订单", "单服", "服务"]
