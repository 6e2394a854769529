"""The time a question names, and the span of time it means.

"What did I do *yesterday*?", "what did we decide about the cache *last week*?", "*three days
ago*", "*on October 13, 2023*", 昨天, 上周, 两个月前, 2023年10月: a claim's date can answer
that part of a question, which its words rarely do. :func:`read` finds the time a text names
(a small tuple, kept in the query plan); :func:`span` turns it into the seconds it covers,
in the local calendar of the person asking, at ``now``.

Only the past and the present: "tomorrow" or "next week" ask about plans, which a claim's
date does not answer. A month, a day or a weekday without a year is read as a past one
only in a question that speaks of the past (did, was, -ed, 了, 过): "what's due on
Monday?" asks about no day a claim was made on. A text naming two different times names
none (two events, :mod:`memory_core.text.grammar`, are asked one by one).

On the per-turn hook's path, it loads nothing the path does not already load, and each
pattern is compiled the first time a text holds what its matches hold.
"""

from __future__ import annotations

import re
import time

from memory_core.lazy_pattern import LazyPattern, lazy
from memory_core.text.query_features import query_terms

DAY = 86_400.0
# What each unit of "N units ago" counts, in seconds.
UNIT_SECONDS = {
    "minute": 60.0, "hour": 3_600.0, "day": DAY, "week": 7 * DAY, "month": 30.44 * DAY, "year": 365.25 * DAY,
}  # fmt: skip
# "Recently", "lately", 最近: the last two weeks; 这几天: the last few days.
RECENT_DAYS = 14.0
FEW_DAYS = 4.0
# "A few" is three; "a couple of" is two.
FEW = 3

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": FEW, "few": FEW, "several": FEW,
    "a couple of": 2, "couple of": 2, "a couple": 2,
}  # fmt: skip
_ZH_NUMBERS = {
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "几": FEW,
}  # fmt: skip
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

_NUMBER = (
    r"(?:\d{1,3}|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|few|several|an?|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(minute|hour|day|week|month|year)s?"
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_YEAR = r"((?:19|20)\d\d)"
_ZH_N = r"(\d{1,3}|[一两二三四五六七八九十几]|半)"
_ON = r"(?<!\bis\s)(?<!\bwas\s)(?<!\bare\s)(?<!\bwere\s)(?<!'s\s)\b(?:on|in|during|from)\s+"
# A Chinese date not stated as what something is (生日是07月19日).
_ZH_ON = r"(?<![是为：:\d])"

# Each pattern with what it names; the first that matches at a place wins, in this order.
_PATTERN_TEXTS = (
    # A date after a preposition of time ("on October 13, 2023", "in May 2023"), not after
    # a copula ("whose birthday is on July 19": the date is what the claim states).
    ("iso", _ON + r"((?:19|20)\d\d)-(\d\d)-(\d\d)(?![\w.-]|:\d)"),
    (
        "day_month",
        _ON + r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b\.?(?:,?\s+" + _YEAR + r"\b)?",
    ),
    ("month_day", _ON + _MONTH + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!:)(?:,?\s+" + _YEAR + r"\b)?"),
    ("month_year", _ON + _MONTH + r"\.?,?\s+" + _YEAR + r"\b"),
    # A month alone only after "in" or "during": "may" is most often a verb.
    ("month", r"\b(?:in|during)\s+(?:early\s+|late\s+|mid-?)?" + _MONTH + r"\b"),
    ("year", r"\b(?:in|during)\s+" + _YEAR + r"\b(?![.\d])"),
    ("ago", r"(?<![\w-])(?:about\s+|around\s+|roughly\s+|some\s+)?(" + _NUMBER + r")\s+" + _UNIT + r"\s+ago\b"),
    ("past", r"\b(?:in|over|during|within)\s+the\s+(?:past|last)\s+" + r"(?:(" + _NUMBER + r")\s+)?" + _UNIT),
    ("day_before", r"\bthe\s+day\s+before\s+yesterday\b"),
    ("yesterday", r"\b(?:yesterday|last\s+night)\b"),
    ("today", r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b"),
    ("last", r"\blast\s+(week|weekend|month|year)\b"),
    ("this", r"\bthis\s+(week|weekend|month|year)\b"),
    ("weekday", r"\b(last|on|this\s+past)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"),
    ("recent", r"\b(?:recently|lately|these\s+days)\b"),
    ("zh_date", _ZH_ON + r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]"),
    ("zh_month", _ZH_ON + r"(\d{4})年(\d{1,2})月(?:份)?|(?<!\d)(\d{1,2})月份"),
    ("zh_year", r"(?<!\d)(\d{4})年(?!\d{1,2}月)"),
    ("zh_ago", _ZH_N + r"(?:个)?(天|日|周|星期|礼拜|月|年)(?:半)?(?:以前|之前|前)"),
    ("zh_day", r"大前天|前天|昨天|昨晚|昨日|今天|今早|今晚|今日|今儿|昨儿"),
    ("zh_weekday", r"(上上|上个?|这个?|本)(?:周|星期|礼拜)([一二三四五六日天])"),
    ("zh_week", r"(上上|上个?|这个?|本)(?:周末|周|星期|礼拜)"),
    ("zh_month_rel", r"上上个月|上个?月|这个月|本月"),
    ("zh_year_rel", r"前年|去年|今年"),
    ("zh_recent", r"最近|这几天|这段时间|近来"),
)
_MONTH_KEYS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# What each pattern's every match holds: a pattern is run only on a text holding one of them
# (a substring test costs far less than a search, and most texts name no time).
_KEYS = {
    "iso": ("19", "20"), "day_month": _MONTH_KEYS, "month_day": _MONTH_KEYS, "month_year": _MONTH_KEYS,
    "month": _MONTH_KEYS, "year": ("19", "20"), "ago": ("ago",), "past": ("past", "last"),
    "day_before": ("yesterday",), "yesterday": ("yesterday", "last"), "today": ("today", "tonight", "this"),
    "last": ("last",), "this": ("this",), "weekday": ("day",), "recent": ("recent", "lately", "these"),
    "zh_date": ("月",), "zh_month": ("月",), "zh_year": ("年",), "zh_ago": ("前",),
    "zh_day": ("天", "晚", "日", "早", "儿"), "zh_weekday": ("周", "星期", "礼拜"), "zh_week": ("周", "星期", "礼拜"),
    "zh_month_rel": ("月",), "zh_year_rel": ("年",), "zh_recent": ("最近", "这几天", "这段时间", "近来"),
}  # fmt: skip
_PATTERNS: tuple[tuple[str, tuple[str, ...], LazyPattern], ...] = tuple(
    (name, _KEYS[name], lazy(pattern)) for name, pattern in _PATTERN_TEXTS
)
_FUTURE_KEYS = ("tomorrow", "next", "upcoming", "明", "后天", "下")
# A question speaking of the past: a date without a year then means the last one before now.
_PAST = lazy(r"\b(?:did|was|were|had|happened|went|got|made|\w{2,}ed)\b|了|过")
# Times in the future: a question naming one is about a plan, not about when a claim was made.
_FUTURE = lazy(r"\b(?:tomorrow|next\s+(?:week|weekend|month|year|time)|upcoming)\b|明天|后天|下周|下个?月|明年|下次")
_ZH_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "昨日": -1, "昨儿": -1}
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}

# An anchor: ("day", offset) a calendar day; ("week" | "weekend" | "month" | "year", offset);
# ("ago", seconds, slack) around a distance from now; ("since", seconds) up to now; ("recent",
# seconds) as "since", but vague: it says when to look, never which claims to leave out;
# ("date", year or 0, month or 0, day or 0); ("weekday", weekday (Monday 0), the week's offset,
# or LAST for the last such day before today).
Anchor = tuple
LAST = 99


def _number(word: str) -> int:
    word = " ".join(word.split())
    return int(word) if word.isdigit() else _NUMBERS.get(word, 1)


def _zh_number(word: str) -> float:
    if word.isdigit():
        return float(word)
    if word == "半":
        return 0.5
    return float(_ZH_NUMBERS.get(word, 1))


def _ago(count: float, unit: str) -> Anchor:
    seconds = count * UNIT_SECONDS[unit]
    # About: half a unit, and a quarter of the distance, either way ("two months ago" is
    # five to nine weeks ago; "three days ago" two to four).
    slack = UNIT_SECONDS[unit] / 2 + seconds / 4
    return ("ago", seconds, slack)


def _offset(word: str) -> int:
    return {"上上": -2, "上个": -1, "上": -1, "这个": 0, "这": 0, "本": 0}[word]


def _anchor(name: str, m: re.Match[str], past: bool) -> Anchor | None:
    g = m.groups()
    if name == "iso":
        return ("date", int(g[0]), int(g[1]), int(g[2]))
    if name == "day_month":
        return ("date", int(g[2] or 0), _MONTHS[g[1]], int(g[0])) if g[2] or past else None
    if name == "month_day":
        if g[0] == "may" and not g[2] and not past:
            return None
        return ("date", int(g[2] or 0), _MONTHS[g[0]], int(g[1])) if g[2] or past else None
    if name == "month_year":
        return ("date", int(g[1]), _MONTHS[g[0]], 0)
    if name == "month":
        return ("date", 0, _MONTHS[g[0]], 0) if past else None
    if name == "year":
        return ("date", int(g[0]), 0, 0)
    if name == "ago":
        return _ago(_number(g[0]), g[1])
    if name == "past":
        return ("since", (_number(g[0]) if g[0] else 1) * UNIT_SECONDS[g[1]])
    if name == "day_before":
        return ("day", -2)
    if name == "yesterday":
        return ("day", -1)
    if name == "today":
        return ("day", 0)
    if name in ("last", "this"):
        return (g[0], -1 if name == "last" else 0)
    if name == "weekday":
        return ("weekday", _WEEKDAYS[g[1]], LAST) if g[0] != "on" or past else None
    if name in ("recent", "zh_recent"):
        return ("recent", (FEW_DAYS if m.group(0) == "这几天" else RECENT_DAYS) * DAY)
    if name == "zh_date":
        return ("date", int(g[0] or 0), int(g[1]), int(g[2])) if g[0] or past else None
    if name == "zh_month":
        if g[0]:
            return ("date", int(g[0]), int(g[1]), 0)
        return ("date", 0, int(g[2]), 0) if past else None
    if name == "zh_year":
        return ("date", int(g[0]), 0, 0)
    if name == "zh_ago":
        return _ago(_zh_number(g[0]), _ZH_UNITS[g[1]])
    if name == "zh_day":
        word = m.group(0)
        return ("day", _ZH_DAYS.get(word, 0))
    if name == "zh_weekday":
        return ("weekday", _ZH_WEEKDAYS[g[1]], _offset(g[0]))
    if name == "zh_week":
        return ("weekend" if m.group(0).endswith("周末") else "week", _offset(g[0]))
    if name == "zh_month_rel":
        word = m.group(0)
        return ("month", -2 if word.startswith("上上") else -1 if word.startswith("上") else 0)
    if name == "zh_year_rel":
        return ("year", {"前年": -2, "去年": -1, "今年": 0}[m.group(0)])
    return None  # pragma: no cover - every pattern is handled above


# A sentence's end: the question is the last sentence that asks (or the last one).
_SENTENCE_END = lazy(r"[?？!！。]|\.(?=\s)|\n")


def question_of(text: str) -> tuple[str, int]:
    """The sentence of ``text`` that asks (the last one ending with a question mark, else the
    last one) and where it starts: a time named elsewhere belongs to what the person tells
    on the way ("昨晚看的那个设计方案 … 主要内容是什么？")."""
    sentences, at = [], 0
    for end in [m.end() for m in _SENTENCE_END.compiled.finditer(text)] + [len(text)]:
        if text[at:end].strip():
            sentences.append((text[at:end], at))
        at = end
    if len(sentences) < 2:
        return text, 0
    asking = [s for s in sentences if s[0].rstrip().endswith(("?", "？"))]
    return (asking or sentences)[-1]


def find(text: str) -> tuple[Anchor, tuple[int, int]] | None:
    """The one time the question of ``text`` (lowercase) names and where it stands, or
    ``None`` when it names none, a future one, or two different ones."""
    text, offset = question_of(text)
    hit = _find(text)
    return None if hit is None else (hit[0], (hit[1][0] + offset, hit[1][1] + offset))


def _find(text: str) -> tuple[Anchor, tuple[int, int]] | None:
    if not text or (any(k in text for k in _FUTURE_KEYS) and _FUTURE.search(text)):
        return None
    past: bool | None = None
    found: Anchor | None = None
    where = (0, 0)
    taken: list[tuple[int, int]] = []
    for name, keys, pattern in _PATTERNS:
        if not any(k in text for k in keys):
            continue
        for m in pattern.compiled.finditer(text):
            if past is None:
                past = _PAST.search(text) is not None
            start, end = m.span()
            if any(start < b and a < end for a, b in taken):
                continue  # part of a time already read ("october 13, 2023" is not also "in 2023")
            anchor = _anchor(name, m, past)
            taken.append((start, end))
            if anchor is None:
                continue
            if found is not None and anchor != found:
                return None
            found, where = anchor, (start, end)
    return (found, where) if found is not None else None


def read(text: str) -> Anchor | None:
    """The time ``text`` (lowercase) names, if it names one (see :func:`find`)."""
    hit = find(text)
    return hit[0] if hit is not None else None


# A question asking what happened at a time, besides the time: "what did I do", "what did we
# work on", "anything we decided", "recap", 做了什么, 干了啥.
_ASKS = lazy(r"\b(?:what|which|anything|recap|summar\w*|remind|tell\s+me)\b|\?|什么|啥|哪些|吗|呢|？")
# Asking back over what was done, in any tense: "have been working", "recap", "up to".
_REVIEW = lazy(r"\b(?:been|recap|summar\w*|up\s+to)\b")
# The features of words that only say something was done ("work on", "happen", 聊, 忙): with
# nothing else, the question is about everything done at that time.
ACTIVITY = frozenset(
    {"work", "happen", "accomplish", "achiev", "recap", "summar", "discuss", "talk", "chat", "learn", "busi",
     "chang", "~status", "忙", "学", "聊", "讨论", "搞", "发生", "都做", "做", "干"}
)  # fmt: skip


def read_window(text: str) -> tuple[Anchor, bool]:
    """The time ``text`` (lowercase) names, or ``()``, and whether it asks only what happened
    then: a question naming nothing but the time and words of doing ("what did I do
    yesterday?", "what have we been working on lately?", 上周我们干了啥？; not "what should I
    do today?", which asks for a plan). The words of
    the time stay in the query: a claim may state the date ("we went camping in June")."""
    hit = find(text)
    if hit is None:
        return (), False
    anchor, (start, end) = hit
    rest = text[:start] + " " + text[end:]
    # A time holding today asks about what happened only in a question of the past ("what
    # did we do today?", not "what should I do today?"); an earlier one always does.
    today = anchor[0] in ("day", "week", "weekend", "month", "year") and anchor[1] == 0
    # "These days" in a question of the present asks what holds now, as "now" does ("how do I
    # get to work these days?"); in one of the past, what happened ("what have we done these days?").
    today = today or (anchor[0] == "recent" and "these" in text[start:end])
    if not _ASKS.search(rest) or (today and not (_PAST.search(rest) or _REVIEW.search(rest))):
        return anchor, False
    return anchor, all(t.feature in ACTIVITY for t in query_terms(rest))


def _midnight(year: int, month: int, day: int) -> float:
    # mktime normalizes a day or month out of range (day 0 is the month's last day before).
    return time.mktime((year, month, day, 0, 0, 0, 0, 0, -1))


def span(anchor: Anchor, now: float) -> tuple[float, float]:
    """The seconds ``anchor`` covers, ``(start, end)``, in the local calendar at ``now``."""
    kind = anchor[0]
    if kind == "ago":
        return (now - anchor[1] - anchor[2], now - anchor[1] + anchor[2])
    if kind in ("since", "recent"):
        return (now - anchor[1], now + 1.0)
    local = time.localtime(now)
    year, month, day, weekday = local.tm_year, local.tm_mon, local.tm_mday, local.tm_wday
    if kind == "day":
        return (_midnight(year, month, day + anchor[1]), _midnight(year, month, day + anchor[1] + 1))
    if kind in ("week", "weekend"):
        monday = day - weekday + 7 * anchor[1]
        first = monday + 5 if kind == "weekend" else monday
        return (_midnight(year, month, first), _midnight(year, month, monday + 7))
    if kind == "month":
        return (_midnight(year, month + anchor[1], 1), _midnight(year, month + anchor[1] + 1, 1))
    if kind == "year":
        return (_midnight(year + anchor[1], 1, 1), _midnight(year + anchor[1] + 1, 1, 1))
    if kind == "weekday":
        if anchor[2] == LAST:  # the last such day before today
            back = (weekday - anchor[1]) % 7 or 7
            return (_midnight(year, month, day - back), _midnight(year, month, day - back + 1))
        target = day - weekday + 7 * anchor[2] + anchor[1]
        return (_midnight(year, month, target), _midnight(year, month, target + 1))
    _, y, m, d = anchor
    if not y:
        # The last such month (or day) not after today.
        y = year if (m, d or 1) <= (month, day) else year - 1
    if not m:
        return (_midnight(y, 1, 1), _midnight(y + 1, 1, 1))
    if not d:
        return (_midnight(y, m, 1), _midnight(y, m + 1, 1))
    return (_midnight(y, m, d), _midnight(y, m, d + 1))


def describe(anchor: Anchor, now: float) -> str:
    """The span of ``anchor`` in words, for diagnostics and ``memevo explain``."""
    start, end = span(anchor, now)
    shape = "%Y-%m-%d %H:%M" if anchor[0] in ("ago", "since", "recent") else "%Y-%m-%d"
    first = time.strftime(shape, time.localtime(start))
    last = time.strftime(shape, time.localtime(end - 1.0))
    return first if first == last else f"{first} to {last}"
