"""A question about one person is not answered by a claim about another (memory_core.recall.persons)."""

from __future__ import annotations

from memory_core.recall.persons import RELATIONS, others
from memory_core.recall.service import explain_claim, recall
from tests.support.recalled import ids
from tests.support.times import NOW


def test_the_relations_features_are_the_tokenizers() -> None:
    from memory_core.text.tokenize import split_units

    for words, features in RELATIONS:
        held = {f for word in words.split() for unit in split_units(word, expand=False) for f, _ in unit}
        assert held == features, words


def test_the_relations_a_question_names_and_the_others() -> None:
    asked, other = others(["上司", "开", "~job"])
    assert {"上司", "领导", "老板", "boss"} <= asked  # one relation, however it is written
    assert "同事" in other and "上司" not in other and "老板" not in other
    assert others(["car", "drive"]) == (frozenset(), ())  # no person: nothing to tell apart


def test_another_persons_claim_is_no_answer(add, reader) -> None:
    uncle = add("我的叔叔特别爱好研究美食和烹饪。")
    colleague = add("我同事平时喜欢健身。")
    # The colleague's claim shares 平时 and 喜欢 and scores higher, but is about someone else.
    assert ids(recall(reader.conn, "我叔叔平时都喜欢干些啥呢？", now=NOW)) == [uncle.id]
    verdict = explain_claim(reader.conn, "我叔叔平时都喜欢干些啥呢？", colleague.id, now=NOW)
    assert verdict["reason"] == "another_person"
    assert ids(recall(reader.conn, "我同事平时喜欢干什么？", now=NOW)) == [colleague.id]


def test_nobody_else_answers_for_a_person_no_claim_names(add, reader) -> None:
    add("My boss drives a grey Volvo.")
    add("我叔叔周末喜欢钓鱼。")
    add("我同事周末去攀岩。")
    # Neither the lexical lead nor a pair of claims takes another person's claim back.
    assert ids(recall(reader.conn, "What car does my dad drive?", now=NOW)) == []
    assert ids(recall(reader.conn, "我舅舅周末喜欢干什么？", now=NOW)) == []


def test_a_claim_naming_the_person_beside_another_answers(add, reader) -> None:
    both = add("My brother and my cousin both play in a five-a-side football league.")
    add("My neighbor's kids play piano every evening.")
    assert ids(recall(reader.conn, "What sport does my cousin play?", now=NOW)) == [both.id]


def test_a_relation_written_another_way_is_the_same_person(add, reader) -> None:
    boss = add("我老板周末喜欢去千岛湖钓鱼。")
    colleague = add("我同事周末喜欢去攀岩。")
    # 老板 is the 上司 the question asks about: the claim stays; the colleague's does not.
    asked = "我上司周末喜欢去哪里钓鱼？"
    assert ids(recall(reader.conn, asked, now=NOW)) == [boss.id]
    assert explain_claim(reader.conn, asked, colleague.id, now=NOW)["reason"] == "another_person"


def test_a_question_naming_no_person_is_judged_as_before(add, reader) -> None:
    volvo = add("My boss drives a grey Volvo.")
    assert ids(recall(reader.conn, "Who drives a grey Volvo?", now=NOW)) == [volvo.id]


def test_a_person_no_claim_names_is_unknown_to_memory(add, reader) -> None:
    mine = add("我在一家运动康复中心当康复治疗师，每天站一整天。")
    add("I work as a physical therapist at a sports clinic.")
    # No claim names a brother: the user's own job is no answer about him, in either language,
    # through neither the lead nor a pair.
    assert ids(recall(reader.conn, "我哥哥做什么工作？", now=NOW)) == []
    assert ids(recall(reader.conn, "What does my brother do for work?", now=NOW)) == []
    verdict = explain_claim(reader.conn, "我哥哥做什么工作？", mine.id, now=NOW)
    assert verdict["reason"] == "unknown_person"
    assert "no claim names that relation" in verdict["detail"]
    # Once a claim names him, the question is judged as before.
    brother = add("我哥哥在银行当柜员。")
    assert ids(recall(reader.conn, "我哥哥做什么工作？", now=NOW)) == [brother.id]
    assert explain_claim(reader.conn, "我哥哥做什么工作？", mine.id, now=NOW)["reason"] != "unknown_person"


def test_the_roles_of_a_named_owner_and_the_person_owned() -> None:
    from memory_core.text.query_features import query_terms
    from memory_core.text.subject_roles import POSSESSED, POSSESSOR

    roles = {t.feature: t.role for t in query_terms("张伟的妻子是做什么的？")}
    assert roles["张伟"] == POSSESSOR and roles["~wife"] == POSSESSED
    roles = {t.feature: t.role for t in query_terms("What do Melanie's kids like?")}
    assert roles["melani"] == POSSESSOR and roles["kid"] == POSSESSED
    # the user's own relations, or a pronoun's, have no named owner
    assert all(not t.role for t in query_terms("我的妻子是做什么的？"))
    assert all(not t.role for t in query_terms("他们的孩子多大了？"))


def test_somebody_elses_relation_or_the_owner_himself_is_no_answer(add, reader) -> None:
    other_wife = add("王建国的妻子叫李秀英，在华西医院当护士。")
    owner = add("王建国的好朋友张伟是一名出租车司机，两人经常一起钓鱼。")
    # 王建国's wife is not 张伟's; 张伟's own job is not his wife's.
    assert ids(recall(reader.conn, "张伟的妻子是做什么的？", now=NOW)) == []
    assert explain_claim(reader.conn, "张伟的妻子是做什么的？", other_wife.id, now=NOW)["reason"] == "possessor_missing"
    assert explain_claim(reader.conn, "张伟的妻子是做什么的？", owner.id, now=NOW)["reason"] == "possessor_missing"
    his_wife = add("张伟的妻子王芳是一名会计，在银行上班。")
    assert ids(recall(reader.conn, "张伟的妻子是做什么的？", now=NOW)) == [his_wife.id]
    # English the same way
    theirs = add("Caroline's kids love dinosaurs and anything with wheels.")
    hers = add("Melanie's kids love going to the beach in the summer.")
    assert ids(recall(reader.conn, "What do Melanie's kids love?", now=NOW)) == [hers.id]
    assert theirs.id not in ids(recall(reader.conn, "What do Melanie's kids love?", now=NOW))


def test_the_index_marks_a_name_written_as_anothers_owner() -> None:
    from memory_core.text.tokenize import OWNER_MARK, index_fields

    body = index_fields("Tom's wife, Anna, works as a midwife.")["body"]
    assert body["tom"] == 1 and body[OWNER_MARK + "tom"] == 1 and OWNER_MARK + "anna" not in body
    body = index_fields("王建国的妻子叫李秀英。")["body"]
    assert body[OWNER_MARK + "王建"] == 1 and body[OWNER_MARK + "建国"] == 1
    assert not any(f.startswith(OWNER_MARK) for f in index_fields("王建国和李秀英有一个女儿。")["body"])
    assert not any(f.startswith(OWNER_MARK) for f in index_fields("我的妻子是老师，他们的孩子在上学。")["body"])


def test_a_claim_naming_the_subject_only_as_anothers_owner_is_about_the_other(add, reader) -> None:
    his = add("王建国是一名中学数学老师，住在成都武侯区。")
    wife = add("王建国的妻子叫李秀英，在华西医院当护士。")
    friend = add("王建国的好朋友张伟是一名出租车司机，两人经常一起钓鱼。")
    assert ids(recall(reader.conn, "王建国是做什么工作的？", now=NOW)) == [his.id]
    assert explain_claim(reader.conn, "王建国是做什么工作的？", wife.id, now=NOW)["reason"] == "another_person"
    # A claim holding another word of the question (the friend's name) is still about both.
    assert friend.id in ids(recall(reader.conn, "王建国和张伟经常一起做什么？", now=NOW))
    tom = add("Tom Becker is a high school chemistry teacher in Leeds.")
    add("Tom's wife, Anna, works as a midwife at St James's Hospital.")
    assert ids(recall(reader.conn, "What does Tom do for a living?", now=NOW)) == [tom.id]
    # Both named: the claim naming Tom once more on his own stays an answer.
    both = add("Tom's wife Anna and Tom ran the Leeds half marathon together.")
    assert both.id in ids(recall(reader.conn, "What race did Tom run?", now=NOW))


def test_the_users_own_statement_is_no_answer_about_their_relation(add, reader) -> None:
    mine = add("10月的时候我换了工作，去了一家做跨境电商的公司当技术经理。")
    wife = add("我老婆在一家外企做财务，平时喜欢烘焙。")
    add("7月我和老婆去青岛度假，住了五天。")
    # The user's own job is told in the first person and names nobody: not the wife's.
    assert ids(recall(reader.conn, "我老婆是做什么的？", now=NOW)) == [wife.id]
    assert explain_claim(reader.conn, "我老婆是做什么的？", mine.id, now=NOW)["reason"] == "another_person"
    assert ids(recall(reader.conn, "我是做什么工作的？", now=NOW))[0] == mine.id
    # English the same way; a claim without a person in it stays ("the clinic is on Elm St.").
    me = add("I work as a nurse at the children's hospital.")
    her = add("My wife teaches math at Lincoln High.")
    assert ids(recall(reader.conn, "What does my wife teach?", now=NOW)) == [her.id]
    assert me.id not in ids(recall(reader.conn, "What does my wife do for work?", now=NOW))
