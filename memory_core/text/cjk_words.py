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

Both are read from the closed sets they are made of (the numerals, the demonstratives, the
measure words and the calendar's units), not from any text: a measure word where one starts
(:func:`measure_word_at`, after the dictionary's words, so the kept 一部分 and the filler
几个 and 这家伙 stay what they are: memory_core.text.vocabulary), a calendar unit right
after digits (:data:`CALENDAR_UNITS`, longest first).
"""

from __future__ import annotations

# Measure words that follow a numeral or a demonstrative and name no thing of their own
# (个 and 位 as well; not 层 or 栋, whose number says which floor or building).
MEASURES = "个家台辆部本件双款位条只张所座间副块支套把杯瓶盒份顶架棵匹枚颗场篇首"
_MEASURE_SET = frozenset(MEASURES)
_NUMERAL_CHARS = frozenset("一二三四五六七八九十两半几")
_DEMONSTRATIVES = frozenset("这那哪每某")
# A count is at most three numerals (三十一); a demonstrative may take 一 (这一台).
_MAX_NUMERALS = 3


def measure_word_at(run: str, i: int) -> int:
    """The length of the numeral or demonstrative and measure word starting at ``run[i]``
    (一台, 两双, 二十个, 这辆, 那一家, 几台), or 0."""
    head = run[i]
    j = i + 1
    if head in _DEMONSTRATIVES:
        if j < len(run) and run[j] == "一":
            j += 1
    elif head in _NUMERAL_CHARS:
        while j < len(run) and j - i < _MAX_NUMERALS and run[j] in _NUMERAL_CHARS:
            j += 1
    else:
        return 0
    return j + 1 - i if j < len(run) and run[j] in _MEASURE_SET else 0


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
