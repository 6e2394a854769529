"""The roles of a question's words that name its subject by what points at or owns it: a
thing a demonstrative and a measure word point at ("那家*游泳馆*") or the user's own getting or
keeping picks out ("我买的*吉他*"), and a person named by whose relation they are ("*张伟*的*妻子*",
"*Melanie*'s *kids*", :mod:`memory_core.text.owners`). :func:`memory_core.text.query_features.query_terms`
gives the words these roles.
"""

from __future__ import annotations

import re

from memory_core.text.cjk_words import MEASURES
from memory_core.text.owners import owned_people
from memory_core.text.tokenize import CJK, WORD, split_units

# The role of a Chinese noun a demonstrative and a measure word of things point at ("那家
# *游泳馆*", "这台*笔记本*"): a thing named, as a modified English name is. Not after 个 or
# 位, which as often open a clause describing a person ("那个只上了专科的家伙", "那位员工").
POINTED = "pointed"
_POINTED = re.compile(f"[这那](?:一)?[{MEASURES.replace('个', '').replace('位', '')}]([\u4e00-\u9fff]+)")
# So is the thing a clause of the user's own getting or keeping picks out ("我买的*吉他*", "我们
# 家养的*猫*", "我租的*房子*"): a thing of theirs, named.
_OWNED = re.compile("我(?:们|家|们家)?(?:新|刚|之前|以前|去年|上次)?(?:买|租|养|借|订|收到)(?:了)?的([\u4e00-\u9fff]+)")


# The role of a name that owns a person the question asks about ("*张伟*的妻子", "*Melanie*'s
# kids", :func:`memory_core.text.owners.owned_people`): whose relation it is. The person owned
# is the subject; a claim about the same relation of somebody else ("王建国的妻子…") is no
# answer (docs/recall.md, gate 6a).
POSSESSOR = "possessor"
# The role of the person owned ("张伟的*妻子*"): an answer names them too, or it is about the
# owner ("张伟是一名出租车司机" is no answer to what his wife does).
POSSESSED = "possessed"


def possessor_roles(text: str) -> dict[str, str]:
    """The features of each name owning a person the question asks about, and of the person."""
    out: dict[str, str] = {}
    for name, owned in owned_people(text):
        for unit in split_units(name, expand=False):
            for feature, kind in unit:
                if kind in (CJK, WORD):
                    out[feature] = POSSESSOR
        for unit in split_units(owned, expand=False):
            for feature, _kind in unit:
                out.setdefault(feature, POSSESSED)
    return out


def pointed_roles(text: str) -> dict[str, str]:
    """The features of the first word after each "这/那 + measure word" in ``text``, and after
    each clause of the user's own getting or keeping."""
    out: dict[str, str] = {}
    if "这" not in text and "那" not in text and "的" not in text:
        return out
    for match in (*_POINTED.finditer(text), *_OWNED.finditer(text)):
        units = split_units(match.group(1), expand=False)
        if units:
            for feature, kind in units[0]:
                if kind == CJK:
                    out.setdefault(feature, POINTED)
    return out
