"""A question about one person is not answered by a claim about another.

"我叔叔平时喜欢干什么？" shares 平时 and 喜欢 with "我同事平时喜欢健身", which can score above
"我的叔叔特别爱好研究美食" and cut it off. Where a question names a person by their relation
to the user (:data:`RELATIONS`), a claim that does not name that relation but names another
is about someone else: it is dropped before the relative cutoff (``another_person``), and it
is no lead and no half of a pair either. A claim naming both ("my brother and my cousin both
play football") stays; a claim naming nobody and told in the first person is the user's own
("10月我换了工作…" is no answer to "我老婆是做什么的？"). Where no claim names the relation at all,
memory knows nothing of that person: "我哥哥做什么工作？" is not answered by "我在康复中心当治疗师"
(the user's own job), every candidate is dropped (``unknown_person``), as firmly.

And a claim naming the question's subject only as the owner of another person ("王建国的妻子…
当护士" for "王建国是做什么工作的？") is about that person (:func:`drop_owners_only`, read from the
index's owner marks, :data:`memory_core.text.tokenize.OWNER_MARK`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memory_core.recall.rows import load_claims
from memory_core.store.engines.dbapi import DbConn
from memory_core.text.subject_roles import POSSESSED, POSSESSOR
from memory_core.text.tokenize import CJK, OWNER_MARK, WORD, normalize

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.recall.rank import Candidate
    from memory_core.text.query_features import Term

REASON = "another_person"
# The user speaking of themselves: 我 (not of 我们), "I", "I'm", "my", "me" (only asked of a
# claim naming no relation: "我的同事…" was judged by its relation already).
_FIRST_PERSON = re.compile(r"我(?!们)|\bi\b|\bi'm\b|\bi've\b|\bmy\b|\bme\b")
UNKNOWN = "unknown_person"

# The people a person speaks of by their relation to them (kin, partners, the people of work,
# school and home), each group of words naming one relation ("上司", "领导", "老板", "boss"),
# with the index features its words have (a test checks them against the tokenizer; held
# here so that no hook process tokenizes them). Words with other common senses are left out:
# "manager" (a package manager), "friend", "partner", "teacher" (too often not one person),
# 男朋友 and 女朋友 (their features are 男, 女 and the concept of a friend).
RELATIONS: tuple[tuple[str, frozenset[str]], ...] = (
    ("爸爸 爸 父亲 dad father", frozenset({"~father"})),
    ("妈妈 妈 母亲 mom mum mother", frozenset({"~mother"})),
    ("哥哥 brother", frozenset({"brother", "哥哥"})),
    ("姐姐 sister", frozenset({"sister", "姐姐"})),
    ("弟弟", frozenset({"弟弟"})),
    ("妹妹", frozenset({"妹妹"})),
    ("叔叔 伯伯 伯父", frozenset({"伯伯", "伯父", "叔叔"})),
    ("舅舅", frozenset({"舅舅"})),
    (
        "阿姨 姨妈 姑姑 姑妈 舅妈 婶婶 伯母 aunt",
        frozenset({"aunt", "伯母", "姑妈", "姑姑", "姨妈", "婶婶", "舅妈", "阿姨"}),
    ),
    ("uncle", frozenset({"uncl"})),
    ("爷爷 外公 姥爷 grandpa grandfather", frozenset({"grandfath", "grandpa", "外公", "姥爷", "爷爷"})),
    ("奶奶 外婆 姥姥 grandma grandmother", frozenset({"grandma", "grandmoth", "外婆", "奶奶", "姥姥"})),
    (
        "表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹 cousin",
        frozenset({"cousin", "堂哥", "堂妹", "堂姐", "堂弟", "表哥", "表妹", "表姐", "表弟"}),
    ),
    ("儿子 son", frozenset({"son", "儿子"})),
    ("女儿 daughter", frozenset({"daughter", "女儿"})),
    ("孙子 孙女 grandson granddaughter", frozenset({"granddaught", "grandson", "孙女", "孙子"})),
    ("侄子 侄女 外甥 niece nephew", frozenset({"nephew", "niec", "侄女", "侄子", "外甥"})),
    ("老婆 妻子 媳妇 太太 wife", frozenset({"~wife"})),
    ("老公 丈夫 husband", frozenset({"~husband"})),
    ("boyfriend", frozenset({"boyfriend"})),
    ("girlfriend", frozenset({"girlfriend"})),
    ("同事 colleague coworker co-worker", frozenset({"co-worker", "colleagu", "cowork", "同事"})),
    ("上司 领导 老板 boss", frozenset({"boss", "上司", "老板", "领导"})),
    ("下属", frozenset({"下属"})),
    ("同学 classmate", frozenset({"classmat", "同学"})),
    ("室友 舍友 roommate flatmate", frozenset({"flatmat", "roommat", "室友", "舍友"})),
    ("邻居 neighbor neighbour", frozenset({"neighbor", "neighbour", "邻居"})),
    ("闺蜜", frozenset({"闺蜜"})),
    ("岳父 岳母 公公 婆婆", frozenset({"公公", "婆婆", "岳母", "岳父"})),
)
_ALL = frozenset().union(*(features for _, features in RELATIONS))


def others(focus: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The features of the relations ``focus`` names, and those of every other relation
    (both empty when the question names none)."""
    held = _ALL.intersection(focus)
    if not held:
        return frozenset(), ()
    named = frozenset().union(*(features for _, features in RELATIONS if features & held))
    return named, tuple(sorted(_ALL - named))


def drop_other_people(conn: DbConn, focus: Iterable[Term], candidates: list[Candidate]) -> None:
    """Mark the eligible claims about another person than the one the question (its ``focus``)
    names: excluded, and firmly, so neither the lead nor a pair takes them back."""
    asked, other = others(t.feature for t in focus)
    if not other:
        return
    if not _named_anywhere(conn, asked):
        for c in candidates:
            c.excluded = c.excluded or UNKNOWN
            c.firm = c.firm or UNKNOWN
        return
    suspects = [c for c in candidates if c.excluded is None and not asked.intersection(c.matched)]
    held = _held(conn, [c.doc.memory_id for c in suspects], (*sorted(asked), *other))
    for c in suspects:
        features = held.get(c.doc.memory_id, set())
        if features.isdisjoint(asked) and not features.isdisjoint(other):
            c.excluded = c.firm = REASON
    # A claim naming no person at all, told in the first person, is about the user: no answer
    # about their wife ("10月我换了工作，去了一家公司当技术经理" for "我老婆是做什么的？").
    nobody = [c.doc.memory_id for c in suspects if c.doc.memory_id not in held]
    if nobody:
        contents = {m: claim.content for m, claim in load_claims(conn, nobody, []).items()}
        for c in suspects:
            if c.doc.memory_id in contents and _FIRST_PERSON.search(normalize(contents[c.doc.memory_id])):
                c.excluded = c.firm = REASON


def drop_owners_only(conn: DbConn, focus: Iterable[Term], candidates: list[Candidate]) -> None:
    """Mark the eligible claims naming the question's subject only as the owner of another
    person ("王建国的妻子叫李秀英，在华西医院当护士" for "王建国是做什么工作的？", "Tom's wife, Anna,
    works as a midwife" for "What does Tom do for a living?"): about that other person, so
    excluded, and firmly. A question naming a relation itself ("王建国的妻子…", "my wife …") is
    judged by the other rules; a claim naming the subject once more on its own, or holding
    another word of the question, stays."""
    terms = tuple(focus)
    if any(t.role in (POSSESSOR, POSSESSED) for t in terms) or others(t.feature for t in terms)[0]:
        return
    names = sorted({t.feature for t in terms if t.kind in (WORD, CJK)})
    suspects = [c.doc.memory_id for c in candidates if c.excluded is None]
    if not names or not suspects:
        return
    counts = _counts(conn, suspects, (*names, *(OWNER_MARK + f for f in names)))
    for c in candidates:
        held = counts.get(c.doc.memory_id)
        if c.excluded is not None or not held:
            continue
        owned = [f for f in names if held.get(OWNER_MARK + f, 0)]
        if not owned or any(held.get(f, 0) > held[OWNER_MARK + f] for f in owned):
            continue
        # matched through the owner's name alone (and concepts: the job, the age asked), no
        # other word of the question ("王建国和张伟经常一起做什么？" over "…的好朋友张伟…两人经常一起钓鱼")
        if not any(held.get(f, 0) for f in names if f not in owned):
            c.excluded = c.firm = REASON


def about_other_people(conn: DbConn, focus: Iterable[Term], memory_ids: Sequence[str]) -> bool:
    """Whether any of ``memory_ids`` is a claim about another person than the question (its
    ``focus``) names: not naming that person, and naming another."""
    asked, other = others(t.feature for t in focus)
    if not other:
        return False
    if not _named_anywhere(conn, asked):
        return True
    held = _held(conn, memory_ids, (*sorted(asked), *other))
    return any(features.isdisjoint(asked) and not features.isdisjoint(other) for features in held.values())


def _named_anywhere(conn: DbConn, features: Iterable[str]) -> bool:
    """Whether any claim holds one of ``features`` in its text (body or aliases)."""
    marks = sorted(features)
    places = ",".join("?" * len(marks))
    row = conn.execute(
        f"SELECT 1 FROM postings WHERE feature IN ({places}) AND field IN ('body', 'alias') LIMIT 1", marks
    ).fetchone()
    return row is not None


def _counts(conn: DbConn, memory_ids: Sequence[str], features: Sequence[str]) -> dict[str, dict[str, int]]:
    """How often each of ``memory_ids`` holds each of ``features`` in its body."""
    counts: dict[str, dict[str, int]] = {}
    for memory_id, feature, tf in _postings(conn, memory_ids, features, "('body')"):
        counts.setdefault(memory_id, {})[feature] = int(tf)
    return counts


def _held(conn: DbConn, memory_ids: Sequence[str], features: Sequence[str]) -> dict[str, set[str]]:
    """Which of ``features`` each of ``memory_ids`` holds in its text (body or aliases); a
    claim holding none is left out."""
    held: dict[str, set[str]] = {}
    for memory_id, feature, _tf in _postings(conn, memory_ids, features, "('body', 'alias')"):
        held.setdefault(memory_id, set()).add(feature)
    return held


def _postings(conn: DbConn, memory_ids: Sequence[str], features: Sequence[str], fields: str) -> list[tuple]:
    """The (claim, feature, count) postings of ``memory_ids`` for ``features`` in ``fields``."""
    if not memory_ids or not features:
        return []
    ids = ",".join("?" * len(memory_ids))
    marks = ",".join("?" * len(features))
    return conn.execute(
        f"SELECT memory_id, feature, tf FROM postings WHERE memory_id IN ({ids}) AND feature IN ({marks}) "
        f"AND field IN {fields}",
        (*memory_ids, *features),
    ).fetchall()
