"""A person named by whose relation they are: "张伟的妻子", "Melanie's kids", "Tom's wife, Anna".

The name before 的 or "'s" owns the person the words of kin, marriage, friendship, work or
school name. A question about somebody's relation is answered by a claim naming both
(:mod:`memory_core.text.query_features`, the ``possessor`` role); a claim naming somebody only
as the owner of another person ("王建国的妻子在华西医院当护士") is about that other person, not
about him (:mod:`memory_core.recall.persons`, the index's owner marks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_PEOPLE_ZH = (
    "妻子|老婆|太太|丈夫|老公|儿子|女儿|孩子|父亲|母亲|爸爸|妈妈|哥哥|姐姐|弟弟|妹妹|好朋友|朋友|同事|上司|老板|"
    "男朋友|女朋友|室友|同学|老师|学生|爷爷|奶奶|外公|外婆|表哥|表姐|表弟|表妹"
)
_PEOPLE_EN = (
    "wife|husband|son|daughter|kids?|children|child|father|mother|dad|mom|mum|parents|brother|sister|"
    r"friends?|best\s+friend|boss|colleague|partner|girlfriend|boyfriend|grand(?:ma|mother|pa|father)|"
    "cousin|uncle|aunt"
)
# (a Chinese name is two or three characters: the last three before 的, of which the filler
# characters are no feature: "问了张伟的妻子" names 张伟)
_OWNED = re.compile(
    f"([\u4e00-\u9fff]{{2,3}})的({_PEOPLE_ZH})"
    rf"|\b([a-z][a-z-]+)'s\s+(?:(?:little|big|older|younger|elder|best|new|late)\s+)?({_PEOPLE_EN})\b"
)
# Who is no name: the pronouns, and what a possessive of a word stands for.
_NOT_NAMES = frozenset("我们 你们 他们 她们 咱们 大家 别人 自己 人家 这个 那个 it one".split())


def owned_people(text: str) -> Iterator[tuple[str, str]]:
    """Each (owner's name, person owned) normalized ``text`` writes ("张伟", "妻子")."""
    if "的" not in text and "'s" not in text:
        return
    for match in _OWNED.finditer(text):
        name, owned = (g for g in match.groups() if g)
        if name in _NOT_NAMES or name[-1] in "我你他她它":
            continue
        yield name, owned
