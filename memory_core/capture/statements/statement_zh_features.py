"""Features of a Chinese sentence for :mod:`memory_core.capture.statements.statement_zh`.

Each function looks for one feature in the prepared sentence (whitespace removed,
punctuation folded, fillers dropped) and returns what it found, or ``None``: a standing
marker ("以后", "每次"), a prohibition ("不要"), a weaker modal ("应该") or a deictic word
("这个") with its position, a preference, a decision, past-tense narration, a failure
report, a convention or a topic-comment statement ("缩进用四个空格"). The order in which
they are consulted, and so the verdict, is decided in ``statement_zh``.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_text import any_of, first_of
from memory_core.capture.statements.statement_zh_words import (
    BEFORE_FIRST,
    CONVENTION_LINKS,
    CONVENTION_NOUNS,
    DECISIONS,
    DEI_AFTER,
    DEICTICS,
    EDIT_BEFORE,
    EVENTS_BEFORE,
    FAILURE_COMPOUNDS,
    FAILURES,
    FIXING,
    NOT_BEFORE_LATER,
    NOT_BIE_AFTER,
    NOT_BIE_BEFORE,
    PAST_GUO,
    PAST_LE,
    PAST_TIMES,
    PICK,
    PLANS,
    PRACTICES,
    PREF_ADVERBS,
    PREF_MORE,
    PREF_VERBS,
    PREF_WORDS,
    PROHIBITIONS,
    SCOPE_NOUNS,
    STANDING,
    SUBJECTS,
    TOPIC_BAD_NEXT,
    TOPIC_BAD_START,
    TOPIC_STOP,
    TOPIC_VERBS,
    WEAK,
)


def standing_marker(core: str) -> str | None:
    """The earliest standing marker: 以后/每次/统一/默认 …, or "提交前" / "…前先" frames."""
    found = [
        hit for hit in (first_of(core, STANDING), first_of(core, BEFORE_FIRST), first_of(core, EVENTS_BEFORE)) if hit
    ]
    pos = core.find("以后")
    while pos >= 0:
        if pos == 0 or core[pos - 1] not in NOT_BEFORE_LATER:
            found.append((pos, "以后"))
            break
        pos = core.find("以后", pos + 2)
    edit = EDIT_BEFORE.search(core)
    if edit:
        found.append((edit.start(), edit.group(0)))
    return min(found)[1] if found else None


def prohibition_marker(core: str) -> str | None:
    found = first_of(core, PROHIBITIONS)
    pos = core.find("别")
    while pos >= 0 and (found is None or pos < found[0]):
        if (pos == 0 or core[pos - 1] not in NOT_BIE_BEFORE) and core[pos + 1 : pos + 2] not in NOT_BIE_AFTER:
            return "别"
        pos = core.find("别", pos + 1)
    return found[1] if found else None


def weak_modal(core: str) -> tuple[int, str] | None:
    """Weak modals: 要 (not 想要/需要/要不/要么), 得 before a verb, 应该, 需要 …"""
    found = first_of(core, WEAK)
    for marker in ("要", "得"):
        pos = core.find(marker)
        while pos >= 0 and (found is None or pos < found[0]):
            nxt = core[pos + 1 : pos + 2]
            if marker == "要" and (pos == 0 or core[pos - 1] not in "想需") and nxt not in ("不", "么"):
                found = (pos, marker)
                break
            if marker == "得" and nxt and nxt in DEI_AFTER:
                found = (pos, marker)
                break
            pos = core.find(marker, pos + 1)
    return found


def deictic_marker(core: str) -> tuple[int, str] | None:
    """A word pointing at the current work ("这个", "那个", "这次", "一下"), not "这个项目"."""
    found = first_of(core, DEICTICS)
    pos = core.find("这个")
    while pos >= 0:
        if not core.startswith(SCOPE_NOUNS, pos + 2):
            if found is None or pos < found[0]:
                found = (pos, "这个")
            break
        pos = core.find("这个", pos + 2)
    pos = core.find("新的")
    if pos >= 0 and (pos == 0 or core[pos - 1] not in "更最全崭") and (found is None or pos < found[0]):
        found = (pos, "新的")
    return found


def preference_marker(core: str) -> tuple[int, int, str] | None:
    """``(start, end, words)`` of "我(更)喜欢/偏好/习惯 …", "比起 A 更 …", "宁可 …"."""
    pos = core.find("比起")
    if pos >= 0:
        more = core.find("更", pos + 2, pos + 34)
        if more >= 0 and core.startswith(PREF_MORE, more + 1):
            liked = next(v for v in PREF_MORE if core.startswith(v, more + 1))
            return pos, more + 1 + len(liked), core[pos : more + 1 + len(liked)]
    pos = core.find("我")
    while pos >= 0:
        end = pos + 1
        advanced = True
        while advanced:
            advanced = False
            for adverb in PREF_ADVERBS:
                if core.startswith(adverb, end):
                    end += len(adverb)
                    advanced = True
        for negation in ("不太", "不"):
            if core.startswith(negation, end):
                end += len(negation)
                break
        verb = next((v for v in PREF_VERBS if core.startswith(v, end)), None)
        if verb:
            return pos, end + len(verb), core[pos : end + len(verb)]
        pos = core.find("我", pos + 1)
    found = first_of(core, PREF_WORDS)
    return (found[0], found[0] + len(found[1]), found[1]) if found else None


def decision_marker(core: str) -> str | None:
    found = any_of(core, DECISIONS) or any_of(core, PLANS)
    if found:
        return found
    pick = PICK.search(core)
    return pick.group(0) if pick else None


def past_marker(core: str) -> str | None:
    found = any_of(core, PAST_TIMES)
    if found:
        return found
    if core.startswith(("之前", "以前")):
        return core[:2]
    return past_verb(core)


def past_verb(core: str) -> str | None:
    for marker, verbs in (("了", PAST_LE), ("过", PAST_GUO)):
        pos = core.find(marker, 1)
        while pos >= 0:
            if core[pos - 1] in verbs:
                return core[pos - 1 : pos + 1]
            pos = core.find(marker, pos + 1)
    return "过了" if "过了" in core else None


def failure_marker(core: str) -> str | None:
    """A failure word, not counting the work of fixing one ("修 bug") or a noun ("报错信息")."""
    text = FIXING.sub("", core)
    for word in FAILURES:
        pos = text.find(word)
        while pos >= 0:
            if not text.startswith(FAILURE_COMPOUNDS, pos + len(word)):
                return word
            pos = text.find(word, pos + 1)
    return None


def convention_marker(core: str) -> str | None:
    """ "我们用 …", "这个项目统一部署在 …" (a short topic may come first), or "命名是 …"."""
    for subject in SUBJECTS:
        pos = core.find(subject)
        if pos < 0 or pos > 6 or "," in core[:pos] or "." in core[:pos]:
            continue
        start = pos + len(subject)
        window = core[start : start + 14].split(",")[0].split(".")[0]
        practice = first_of(window, PRACTICES)
        if practice and practice[0] <= 12:
            return core[pos : start + practice[0] + len(practice[1])]
    for noun in CONVENTION_NOUNS:
        pos = core.find(noun)
        if pos >= 0 and core.startswith(CONVENTION_LINKS, pos + len(noun)):
            return noun
    return None


def topic_comment(core: str) -> str | None:
    """ "提交信息用英文写", "日志统一用 structlog": a noun topic, then how it is done."""
    if core[0] in TOPIC_BAD_START:
        return None
    for i in range(1, min(len(core), 16)):
        if core[i - 1] in TOPIC_STOP:
            return None
        verb = next((v for v in TOPIC_VERBS if core.startswith(v, i)), None)
        if verb and not core.startswith(TOPIC_BAD_NEXT, i + len(verb)):
            return core[: i + len(verb)]
    return None
