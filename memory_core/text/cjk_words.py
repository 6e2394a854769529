"""Closed classes of Chinese words the tokenizer reads as words, not as characters to pair.

Chinese text has no spaces, so the tokenizer pairs the characters between its dictionary's
words (:mod:`memory_core.text.tokenize`). Two kinds of word sit right against what they
modify and would otherwise pair with it:

* a **measure word** after a numeral or a demonstrative (一台, 那家, 这辆, 两双, 几台): it
  says how many or which, not what. "那家游泳馆" is 游泳馆 (not 家游), "一辆比亚迪" is
  比亚迪. It is filler, dropped on both sides.
* a **calendar or clock unit** after a number in digits (2021年, 9月4号, 7点, 3个星期): a
  word of its own, written one way (号 is 日, a week 周), so the word after it stands alone
  ("2021年买的" holds 买, as "什么时候买的" asks it, not 年买).

The lists are built from the closed sets they are made of (numerals, demonstratives,
measure words, the calendar's units), not from any text, and hold words of at most four
characters (the tokenizer's longest dictionary word).
"""

from __future__ import annotations

_DIGITS = "一二三四五六七八九"
# 一 … 三十一 (and 两, 半 and 几 below).
_NUMERALS = (
    list(_DIGITS)
    + ["十"]
    + [f"十{d}" for d in _DIGITS]
    + [f"{t}十" for t in "二三"]
    + [f"二十{d}" for d in _DIGITS]
    + ["三十一"]
)
_COUNTS = [*_NUMERALS, "两", "半"]

# Measure words that follow a numeral or a demonstrative and name no thing of their own
# (个 and 位 as well; not 层 or 栋, whose number says which floor or building).
MEASURES = "个家台辆部本件双款位条只张所座间副块支套把杯瓶盒份顶架棵匹枚颗场篇首"
_DEMONSTRATIVES = ("这", "那", "哪", "每", "某", "这一", "那一", "哪一", "每一")

CHINESE_MEASURE_WORDS: frozenset[str] = frozenset(
    f"{head}{measure}" for measure in MEASURES for head in (*_DEMONSTRATIVES, *_COUNTS, "几")
) | {"这家伙", "那家伙"}
# Words that begin as a count and a measure word but are words of their own.
CHINESE_COUNTED_WORDS: frozenset[str] = frozenset({"一部分", "一块儿", "一家子"})

# A calendar's or a clock's unit after a number, as one word: 号 is 日, a week is 周 however
# it is written, and "个" before a unit is only the measure word (八个周 is eight weeks).
CALENDAR_UNITS: dict[str, str] = {
    "年": "年",
    "月": "月",
    "个月": "月",
    "日": "日",
    "号": "日",
    "天": "天",
    "周": "周",
    "个周": "周",
    "星期": "周",
    "个星期": "周",
    "礼拜": "周",
    "个礼拜": "周",
    "点": "点",
    "点半": "点",
    "点钟": "点",
    "时": "时",
    "小时": "小时",
    "个小时": "小时",
    "分": "分",
    "分钟": "分钟",
    "秒": "秒",
}
CALENDAR_UNIT_LONGEST = max(map(len, CALENDAR_UNITS))
