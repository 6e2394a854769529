"""Question framing is not subject matter: Chinese function characters and question words,
and the ways a user sets chatter aside before the real question."""

from __future__ import annotations

import pytest

from memory_core.recall.query_plan import build_plan
from memory_core.recall.service import recall
from memory_core.text.query_features import query_terms
from memory_core.text.tokenize import features
from memory_core.text.value_classes import is_value_class
from tests.support.times import NOW


def focus(text: str) -> list[str]:
    return [t.feature for t in query_terms(text)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("构建要多久？", ["~build"]),  # 多久 "how long", a lone 要
        ("日志文件在哪？", ["~log", "~file"]),  # 哪 "where"
        ("部署到哪台服务器上了？", ["~deploy", "~server"]),  # 到, 哪台, a locative 上
        ("对，那个缓存的超时是多少", ["~cache", "~timeout"]),  # 对 "right,"
        ("测试用的是哪个数据库？", ["~test", "~database", "=database"]),  # a lone 用 "use"; a database asked
        ("好的，那Redis呢？", ["redi"]),
    ],
)
def test_chinese_question_words_and_lone_function_characters_are_filler(query: str, expected: list[str]) -> None:
    assert focus(query) == expected


def test_function_characters_inside_words_and_lone_content_characters_stay() -> None:
    assert "还原" in features("还原数据库备份")  # 还 starts a word here: not filler
    assert "上线" in features("服务上线了")
    assert focus("猫？") == ["猫"]  # a lone content character is still a subject


def test_a_chinese_how_long_question_finds_its_answer(add, reader) -> None:
    build = add("CI 上构建大约需要四分钟")
    add("部署脚本在 scripts 目录")
    # "要多久" used to be an unknown subject beside 构建, so the one claim about the build
    # was refused as a single match among unknown words.
    assert [c.memory_id for c in recall(reader.conn, "构建要多久？", now=NOW).claims] == [build.id]


@pytest.mark.parametrize(
    "text",
    [
        "最近好忙，天气也不好。哦豁，我其实是想搞清楚，数据库的端口是多少？",
        "最近好忙，天气也不好。不对，我真正想要了解的是：数据库的端口是多少？",
        "最近好忙，天气也不好。哎，我真正想弄清楚的是，数据库的端口是多少？",
        "最近好忙，天气也不好。额，实际上我那个问题是这个，数据库的端口是多少？",
        "最近好忙，天气也不好。对了，我想问，数据库的端口是多少？",
        "Busy week, the weather is awful. What I really want to know is the database port.",
    ],
)
def test_chatter_before_the_real_question_is_set_aside(text: str) -> None:
    plan = build_plan([text])
    # (A question that asks the port's value also gets its value class: tests/recall/test_value_classes.py.)
    assert [t.feature for t in plan.focus if not is_value_class(t.feature)] == ["~database", "~port"]


def test_asking_phrases_are_framing() -> None:
    assert focus("我想问你知道数据库端口吗") == ["~database", "~port"]
    assert focus("我想知道构建要多久") == ["~build"]


def test_a_noisy_question_finds_its_answer(add, reader) -> None:
    port = add("数据库端口是 5433")
    add("天气预报说周末有雨")
    add("最近在忙迁移脚本")
    text = "最近好忙，周末天气也不好，迁移脚本还没写完。哦豁，我其实是想搞清楚，数据库的端口是多少？"
    assert [c.memory_id for c in recall(reader.conn, text, now=NOW).claims] == [port.id]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("我表姐多大年纪了？", ["表姐", "~age"]),  # 多大 "how", 年纪 "age"
        ("我上司是啥职位来着？", ["上司", "~job", "=job"]),  # 啥 "what", 来着 "again?"
        ("有几个人身高在165cm及以上啊？", ["~height", "165cm", "165"]),  # 以上 "or more"
        ("那我的上司是哪个学校毕业的呢？", ["上司", "~school", "~education", "=education"]),
        ("我爸爸的邮箱地址是多少来着？", ["~father", "~email", "~address", "=email"]),
        ("How long has Caroline had her friends?", ["carolin", "~friend"]),
        ("What kind of pottery does Melanie make?", ["potteri", "melani"]),
    ],
)
def test_general_question_words_and_personal_details(query: str, expected: list[str]) -> None:
    assert focus(query) == expected


def test_personal_details_are_one_feature_in_both_languages() -> None:
    assert "~age" in features("我表姐今年46岁了。") and "~age" in features("She is aged 46")
    assert "~height" in features("我表妹身高158厘米") and "~height" in features("height 158 cm")
    assert set(features("我父亲的邮箱")) == {"~father", "~email"}
    # Aunts are not mothers: only whole words map to concepts.
    assert "~mother" not in features("我舅妈是工程师")


def test_a_quantity_with_its_unit_is_a_value_not_a_subject() -> None:
    terms = query_terms("165cm")
    # the quantity and its number, one unit: either form matches
    assert [t.feature for t in terms] == ["165cm", "165"]
    assert {t.kind for t in terms} == {"number"} and len({t.unit for t in terms}) == 1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did we change in the cache yesterday", ["chang", "~cache"]),
        ("last time the cache broke", ["~cache", "broke"]),
        ("the deploy recently failed every time", ["~deploy", "fail"]),
        ("which ORM do we currently use", ["orm"]),
        ("what is the deploy doing right now", ["~deploy"]),
        ("who owns the cache at the moment", ["own", "~cache"]),
        ("缓存昨天坏了", ["~cache", "坏"]),
        ("最近部署失败了", ["~deploy", "失败"]),
    ],
)
def test_time_relative_to_the_moment_of_speaking_is_not_a_subject(query: str, expected: list[str]) -> None:
    # The claim's "yesterday" was another day than the question's.
    assert focus(query) == expected


def test_relative_time_stays_in_the_index_and_last_stays_a_word() -> None:
    assert "yesterdai" in features("Deployed the cache fix yesterday")
    assert "last" in focus("who came in last")
    assert "moment" in focus("the moment of inertia")  # only "at the moment" is relative time


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("a sword like the heroes in novels", ["sword", "hero", "novel"]),
        ("it feels like the cache is slow", ["~cache", "slow"]),
        ("I also like to draw giraffes", ["draw", "giraff"]),
    ],
)
def test_like_is_no_subject_of_a_query(query: str, expected: list[str]) -> None:
    # It compares or hedges; as the verb of taste it names nothing the thing liked does not.
    assert focus(query) == expected


def test_like_stays_in_the_index() -> None:
    assert "like" in features("Lisa likes strawberry cake")
