"""The tokenizer: words, literals, Chinese bigrams, concepts, filler, quoted questions."""

from __future__ import annotations

import pytest

from memory_core.text.query_features import query_terms
from memory_core.text.stem import stem
from memory_core.text.tokenize import features, index_fields, origin_features


def test_english_words_are_stemmed_and_filler_dropped() -> None:
    found = features("The painter painted paintings while we were waiting")
    assert set(found) == {"painter", "paint", "wait"}
    assert found["paint"] == 2


def test_porter_reference_points() -> None:
    pairs = {
        "caresses": "caress",
        "ponies": "poni",
        "relational": "relat",
        "hopping": "hop",
        "generalization": "gener",
        "sensibiliti": "sensibl",
        "filing": "file",
        "sky": "sky",
    }
    assert {w: stem(w) for w in pairs} == pairs


def test_paths_are_exact_literals_without_topic_words() -> None:
    found = set(features("Output goes to /work/pi-memory-evolution/dist now"))
    assert "/work/pi-memory-evolution/dist" in found
    assert "/work/pi-memory-evolution" in found  # the directory finds the file
    assert "dist" in found  # its last segment, as written
    assert not {"~memory", "memory", "evolut", "work"} & found
    terms = query_terms("what is in /work/pi-memory-evolution?")
    assert [(t.feature, t.kind) for t in terms] == [("/work/pi-memory-evolution", "literal")]


def test_filenames_identifiers_urls_and_numbers() -> None:
    found = set(features("Edit config.toml and memory_core, see https://example.com/a b, port 5432, v1.2.3"))
    assert {"config.toml", "memory_core", "https://example.com/a", "example.com", "5432", "v1.2.3", "~port"} <= found
    assert not {"e", "g"} & set(features("e.g. this"))
    assert set(features("and/or")) == set()  # a slash between two words is not a path


def test_chinese_bigrams_concepts_and_filler() -> None:
    found = features("金融科技精英论坛的主要内容是什么？")
    assert set(found) == {"金融", "融科", "科技", "技精", "精英", "英论", "论坛", "主要", "~content"}
    assert set(features("SQLite数据库的端口是多少")) == {"sqlite", "~database", "~port"}


def test_concept_map_merges_synonyms_across_languages() -> None:
    assert set(features("database db 数据库 databases")) == {"~database"}
    assert features("database db 数据库")["~database"] == 3
    terms = query_terms("数据库 database")
    assert [t.feature for t in terms] == ["~database"]  # one feature, one vote


def test_query_units_and_flags() -> None:
    terms = query_terms("Do you remember the SQLite auth setting?")
    assert [(t.feature, t.attribute, t.generic) for t in terms] == [
        ("sqlite", False, False),
        ("~auth", True, False),
        ("~config", True, True),
    ]
    units = {t.unit for t in query_terms("户外徒步 端口")}
    assert len(units) == 2


def test_quoted_questions_are_their_own_field() -> None:
    fields = index_fields('The user asked "what port does Redis use?" and we said 6380')
    assert set(fields["quote"]) == {"~port", "redi"}
    assert "~port" not in fields["body"] and "6380" in fields["body"]
    fields = index_fields("「Redis 的端口是多少？」")
    assert set(fields) == {"quote"}
    plain = index_fields('The README says "Redis listens on port 6380".')
    assert "quote" not in plain and "~port" in plain["body"]


def test_search_terms_are_the_alias_field() -> None:
    fields = index_fields("Use pnpm", ["package manager", "包管理"])
    assert set(fields["alias"]) >= {"packag", "manag"}
    assert set(fields["body"]) == {"pnpm"}


def test_origin_features_exclude_concept_words() -> None:
    assert origin_features("/work/pi-memory-evolution") == ("/work/pi-memory-evolution", "pi-memory-evolution")
    assert "~memory" not in origin_features("/work/memory")
    assert origin_features("legacy") == ("legacy",)


def test_full_width_forms_are_normalized() -> None:
    assert set(features("ＳＱＬｉｔｅ　ｐｏｒｔ")) == {"sqlite", "~port"}


def test_chinese_asking_phrases_name_the_detail_on_the_query_side_only() -> None:
    assert [t.feature for t in query_terms("我表弟现在多大了呀？")] == ["表弟", "~age"]
    # (asking where from, the question also takes the class of a place one comes from)
    assert [t.feature for t in query_terms("我表妹是哪里的人啊？")] == ["表妹", "~hometown", "=hometown"]
    assert [t.feature for t in query_terms("她是哪里人")] == ["~hometown", "=hometown"]
    # "多大" alone may ask about a size: it stays filler.
    assert [t.feature for t in query_terms("这个文件多大？")] == ["~file"]
    # Stored text keeps them as filler, so what the index holds is unchanged.
    assert set(features("我表弟多大了，他是哪里人")) == {"表弟"}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("我弹吉他", "吉他"),  # 他 is a pronoun alone, not inside 吉他
        ("我们用Sentry做错误跟踪", "跟踪"),  # 跟 is a conjunction alone
        ("晚上去酒吧喝一杯", "酒吧"),  # 吧 is a particle alone
        ("他很在乎成绩", "在乎"),
        ("我们需要跟进这个问题", "跟进"),
    ],
)
def test_chinese_words_holding_a_function_character_stay_whole(text: str, word: str) -> None:
    assert word in features(text)


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("我和解决方案架构师约了周三开会", "和解"),
        ("我在意大利工作了两年", "在意"),
        ("那个节目的主持人是李华", "目的"),
        ("涉及时区的bug都交给小王", "及时"),
        ("我的确认码是4471", "的确"),
    ],
)
def test_no_word_is_made_of_the_end_of_one_and_the_start_of_the_next(text: str, joined: str) -> None:
    assert joined not in features(text)


def test_a_state_in_ship_is_its_bases_business() -> None:
    assert features("my gym membership") == features("a gym member")
    assert "partner" in features("our partnership with Stripe")
    assert "relat" in features("Caroline's relationship status")
    # a short base is another word: hardship is no hard thing, a flagship no flag
    assert "hardship" in features("financial hardship")
    assert "flagship" in features("the flagship store")
    assert "worship" in features("a place of worship")


@pytest.mark.parametrize(
    ("text", "kept", "dropped"),
    [
        ("我常去的那家游泳馆", {"游泳", "泳馆"}, {"那家", "家游"}),
        ("我老婆开的是一辆比亚迪", {"比亚", "亚迪"}, {"一辆", "辆比"}),
        ("我买了两双跑鞋", {"买", "跑鞋"}, {"两双", "双跑"}),
        ("这台笔记本电脑", {"笔记", "电脑"}, {"这台", "台笔"}),
        ("二十个苹果", {"苹果"}, {"二十", "个苹"}),
    ],
)
def test_a_measure_word_after_a_count_or_a_demonstrative_is_filler(text: str, kept: set, dropped: set) -> None:
    found = set(features(text))
    assert kept <= found
    assert not dropped & found
    # the query side reads it the same way
    assert not dropped & {t.feature for t in query_terms(text + "在哪？")}


def test_words_that_open_with_a_count_and_a_measure_word_stay_whole() -> None:
    assert {"一部", "部分"} <= set(features("一部分人"))
    assert "~family" in features("我们一家人去了海边")
    # floors and buildings are counted by their number: 三层 is no filler
    assert "三层" in features("住在三层")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这辆车是2021年买的", {"2021", "年", "买"}),
        ("我的上司生日是在9月4号", {"9", "月", "4", "日"}),
        ("生日是09月04日的人", {"9", "月", "4", "日"}),
        ("下午3点开会", {"3", "点", "开会"}),
        ("持续了3个星期", {"3", "周"}),
        ("用了2个小时修好", {"2", "小时", "修好"}),
    ],
)
def test_a_calendar_unit_after_digits_is_a_word_of_its_own(text: str, expected: set) -> None:
    found = set(features(text))
    assert expected <= found
    assert not {"年买", "点开", "时修"} & found


def test_a_date_asked_with_leading_zeros_finds_the_date_written_without() -> None:
    assert {"9", "4"} <= {t.feature for t in query_terms("那个生日是09月04日的人是谁？")}
    assert {"9", "4"} <= set(features("我的上司生日是在9月4号。"))
    # elsewhere a number keeps its zeros (a code, a version)
    assert "007" in features("工号007")
    assert "0123" in features("the room code is 0123")


def test_what_a_question_asks_after_a_year_stands_alone() -> None:
    assert "买" in {t.feature for t in query_terms("我的车是2021年什么时候买的？")}
    assert "买" in features("这辆车是2021年买的")


def test_a_measure_written_with_letters_is_also_its_number() -> None:
    # "172cm" is 172 as "172厘米" is: one unit, either form matching.
    assert {"172cm", "172"} <= set(features("她身高172cm"))
    assert "172" in features("我妈妈的身高有172厘米。")
    [unit] = [t.unit for t in query_terms("身高172cm的人是谁？") if t.feature == "172"]
    assert unit == next(t.unit for t in query_terms("身高172cm的人是谁？") if t.feature == "172cm")
    assert {"30s", "30"} <= set(features("timeout 30s"))
    # letters that are no unit stay whole only
    assert "2" not in features("enable 2fa") and "4" not in features("a 4k screen")
