"""Values that state an attribute without naming it, and questions that ask for such a value.

"我的自行车是蓝色的" and "my bike is blue" state the bicycle's colour; "花了2300元" and "it was
$40" state a cost. The attribute's word is not there, so a short question naming the
subject and the attribute ("我的自行车是什么颜色？", "what colour is my bike?") found no
claim holding both. Each attribute here has a class of values a claim can be seen to hold:

* the index gives a claim holding such a value one more feature, the class (``=color``,
  ``=cost``), beside the value's own features and never in place of them;
* a question *asking* for the attribute's value ("什么颜色", "what colour is", "多少钱",
  "how much did … cost") in the clause that names the attribute gets the class as an
  alternative to the attribute's concept (:func:`memory_core.text.query_features.query_terms`):
  a claim holding either answers it.

A question that only speaks of the attribute ("why did she use colours and patterns?")
does not ask for a value: a claim holding some colour is no answer to it, so it gets no
class. The classes are general ones of both languages: the basic colour terms, and an
amount with a currency sign or unit. Changing them changes what the index holds: bump
``INDEX_VERSION``.
"""

from __future__ import annotations

import re

_AMOUNT_ZH = "[0-9零一二两三四五六七八九十百千万亿]"
# A file's extension before ":<line>" (app.py:120): a source location, not a host and port.
_SOURCE_EXTENSIONS = (
    "(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|rs|go|java|kt|rb|php|cs|c|h|cc|cpp|hpp|m|swift|scala|sql|sh|"
    "md|rst|txt|log|ya?ml|json|toml|ini|cfg|conf|lock|html|css|vue|svelte|ipynb)"
)
# A bare "… <noun>?" asks the value only as a short question of its own ("billing API port?",
# "and the price?"), not a clause that opens with an auxiliary or another wh-word ("did Bob
# reply to the email?", "why do phones come in so many colours?").
_NOT_BARE = (
    "(?:did|do|does|can|could|should|would|will|shall|may|might|must|was|were|is|are|am|has|have|had|"
    "why|how|when|where|who|whom|whose)"
)


def _what_is(noun: str) -> str:
    """English "what/which (is/was) (the/my …) (a word or two) <noun>" or a bare "… <noun>?" (as
    "billing API port?"): a question for its value."""
    return (
        r"\b(?:what|which)(?:'s|\s+(?:is|was|were|are|will\s+be|would\s+be))?\s+"
        rf"(?:(?:the|my|our|your|its|their|his|her|this|that)\s+)?(?:[a-z'-]+\s+){{0,2}}{noun}\b"
        rf"|(?:^|[,:])\s*(?!{_NOT_BARE}\b)(?:[a-z0-9'-]+\s+){{0,3}}{noun}\s*\?\s*$"
    )


_CN_NUM = "[0-9零一二两三四五六七八九十]"
_MONTHS = (
    "january|february|march|april|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
)
# an hour of the clock: 0-24 in digits, 一 … 十二 in Chinese
_HOUR = "(?:[0-9]{1,2}|十[一二]?|[零一二两三四五六七八九])"
# Neither a count of times ("每周一次", "一周三次") nor a day within a word ("提前天数", "之后天天").
_WEEKDAY = (
    "(?:(?:上上|下下|上|下|这|本)(?:周|星期|礼拜)|(?<![每一二三四五六七八九十几两])(?:周|星期|礼拜))"
    "[一二三四五六日天](?![次遍回个])"
)
_WHEN_HELD = re.compile(
    # a clock time: a time of day before it, or 钟/半/分 after it ("10点半"; not "有3点需要注意",
    # "给了10点经验", "九十点五分")
    rf"(?:早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨|半夜){_HOUR}点"
    rf"|(?<![第0-9零一二两三四五六七八九十百分]){_HOUR}点(?:钟|半|{_CN_NUM}{{1,2}}分)"
    rf"|{_CN_NUM}{{1,4}}年{_CN_NUM}{{1,2}}月|[0-9]{{4}}年|{_CN_NUM}{{1,2}}月(?:份|{_CN_NUM}{{1,3}}[日号])"
    f"|{_WEEKDAY}"
    "|(?:去年|今年|明年|昨天|今天|明天|上个月|下个月|这个月)"
    "|(?<![提之以最然向往])(?:前年|前天|后天)(?![天数])"
    # digits: 2024-04-17, 2024/4/17, 10:30 (not a host's port, a source line, a ratio's 3:1 or a
    # duration's 0:05:12)
    r"|\b[0-9]{4}[-/][0-9]{1,2}[-/][0-9]{1,2}\b"
    r"|(?<![\w.:/-])[0-9]{1,2}:[0-5][0-9](?![0-9]|:[0-9])"
    r"|\b[0-9]{1,2}(?::[0-5][0-9])?\s?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])|\bnoon\b|\bmidnight\b|\bo'clock\b"
    r"|\b(?:today|tonight|tomorrow|yesterday)\b|\b(?:last|next)\s+(?:week|month|year)\b"
    # a month with its day or year ("March 3rd", "3 March", "may 2024"; "may" alone is a verb)
    rf"|\b(?:{_MONTHS})\.?\s+[0-9]{{1,2}}(?:st|nd|rd|th)?\b|\b[0-9]{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\b(?:{_MONTHS})\s+[0-9]{{4}}\b|\bmay\s+[0-9]{{4}}\b"
    # May with a day: an ordinal, or after "on" ("May 2nd", "2nd of May", "on May 2"; not
    # "step 2 may fail")
    r"|\bmay\s+[0-9]{1,2}(?:st|nd|rd|th)\b|\b[0-9]{1,2}(?:st|nd|rd|th)\s+(?:of\s+)?may\b|\bon\s+may\s+[0-9]{1,2}\b"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
)
# "time complexity", "time zone": no time of day
_TIME_NOUN = r"times?(?!\s+(?:complexity|zones?|series|frames?|limits?|windows?|stamps?|outs?|box(?:es)?))"
_WHEN_ASKED = re.compile(
    "几点|(?:哪|哪一)(?:年|天)|几月几[号日]|什么时候|啥时候|何时|(?:时间|日期)(?:是|为)?(?:什么|啥|几点|哪天|多少)"
    # which of two opens, starts or ends earlier or later: a comparison of their times
    "|(?:哪|谁)[^,.?!;，。？！；]{0,12}(?:更|最|较|比较)(?:早|晚)"
    rf"|\bwhat\s+{_TIME_NOUN}\b|\bwhich\s+day\b|\bwhat\s+day\b|\bwhat\s+year\b|\bwhich\s+year\b"
    rf"|{_what_is('(?:dates?|' + _TIME_NOUN + ')')}"
)

# attribute concept -> (its value class feature, a claim holding a value, a question asking one)
VALUE_CLASSES: dict[str, tuple[str, re.Pattern[str], re.Pattern[str]]] = {
    "~color": (
        "=color",
        re.compile(
            "[红橙黄绿青蓝紫粉棕褐黑白灰银金]色"
            # not one part of a compound or a path: red-black, blue-green, /srv/red, node-red
            r"|(?<![-/])\b(?:red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|gr[ae]y|silver|beige|"
            r"navy|turquoise|maroon)\b(?![-/])"
        ),
        re.compile(
            "(?:什么|啥|哪种|哪个|哪一种|什么样的?)颜色|颜色(?:是|为)?(?:什么|啥|哪)"
            rf"|{_what_is('colou?rs?')}"
        ),
    ),
    "~cost": (
        "=cost",
        re.compile(
            # "$1" is a shell's or awk's argument far more often than a price: a dollar amount
            # has two digits or a decimal part. 元 of 元组, 元素, 二元运算 … is no money.
            r"[¥€£]\s?[0-9]|\$\s?(?:[0-9]{2,}|[0-9][.,][0-9])"
            rf"|{_AMOUNT_ZH}\s?(?:元(?![组素运算表达次函数件旦数]|[一二三四]次)|块钱|美元|美金|欧元|英镑|日元|港币|港元)"
            # 块 is money only where no noun it counts follows ("6500块，", "三十多块的", not
            # "一块手表", "两块蛋糕", "8块 SSD"), after more than a lone 一 ("我们一块去" is
            # "together") and no ordinal ("第3块"); begun where the amount begins (one try a run)
            rf"|(?<![0-9零一二两三四五六七八九十百千万亿第])(?:[0-9]+|{_AMOUNT_ZH}{{2,}})多?块"
            r"(?=[,.;:!?，。；：！？、)）]|\s(?![a-z0-9])|$|左右|的)"
            r"|[0-9]\s?(?:dollars?|bucks|euros?|pounds|yuan|rmb|usd|eur|gbp|cny)\b"
        ),
        re.compile(
            "多少钱|多少块钱|(?:价格|价钱|费用|花费|成本|售价)(?:是|为|要)?多少"
            # which of two is cheaper or dearer: a comparison of their prices
            "|(?:哪|谁)[^,.?!;，。？！；]{0,12}(?:更|最|比较)?(?:贵|便宜)"
            rf"|\bhow\s+much\b|{_what_is('(?:price|cost|fee)s?')}"
            r"|\b(?:which|what)\b[^,.?!;]{0,40}\b(?:cheaper|cheapest|pricier|more\s+expensive|most\s+expensive)\b"
        ),
    ),
    # A port after a host that is one: localhost, an IP address, a URL's host, a dotted name
    # that is no source file ("db.internal:5432", not "api.py:120"), a docker port mapping
    # ("-p 8080:80") or a colon alone (":3000"). A single word before a colon is too often
    # something else ("postgres:15" an image tag, "TODO:1234", "pid:4567").
    "~port": (
        "=port",
        re.compile(
            r"(?:\blocalhost|\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}|\[[0-9a-f:]+\]|://[a-z0-9.-]+"
            # (a dotted name begun only where its run begins: one try a run, not one a character)
            rf"|(?<![a-z0-9.-])[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?!{_SOURCE_EXTENSIONS}:)[a-z][a-z0-9-]*)"
            r":[0-9]{2,5}(?![\w:-]|\.\w)"
            r"|(?:^|[\s(])-p\s+[0-9]{2,5}:[0-9]{2,5}\b"
            r"|(?:^|[\s(]):[0-9]{2,5}(?![\w:-]|\.\w)"
        ),
        re.compile(f"{_what_is('ports?(?: numbers?)?')}|(?:什么|哪个|几号)端口|端口(?:号)?(?:是)?(?:多少|什么|几)"),
    ),
    # A time of day or a date: "晚上七点", "10:30", "2022年5月", "11月3日", "下周三",
    # "2024-04-17", "7 pm", "May 7". A lone "一点"/"两点" is "a little"/"two points" and
    # "第3点" a third point: a clock time in Chinese has digits, a time of day before it or
    # 钟/半/分 after it. Years alone ("in 2019") and a bare "May" are left out.
    "~time": ("=when", _WHEN_HELD, _WHEN_ASKED),
    "~date": ("=when", _WHEN_HELD, _WHEN_ASKED),
    # A name given with the verb that gives it: "我舅舅叫张翰林", "我们的支付服务叫 paygate"
    # (not 叫停, 叫醒, 叫外卖, 叫救护车, 尖叫, 被叫, "叫我…", 叫的 …: the verb's other senses,
    # to call off, wake, order, summon, scream). The name ends its clause. English "named
    # Biscuit", "called Ruff" is read on the text as written (:data:`_WRITTEN_NAME`).
    "~name": (
        "=name",
        re.compile(
            "(?<![被尖大喊吼惊鸣乱在])叫(?:做)?"
            "(?![停价卖苦醒好喊嚷骂车号来起住过回去出声人我你他她它们的了着啊]|上(?!海)|外卖|服务员|救护|医生|警察)"
            "\\s*(?:[\\u4e00-\\u9fff]{2,12}|[a-z][\\w.-]*)(?=[\\s,.!?;:，。！？；：、)）]|$)"
        ),
        re.compile(
            "什么名字|啥名字|名字(?:是|叫)?(?:什么|啥)|叫什么|叫啥|姓名(?:是)?(?:什么|啥)"
            rf"|{_what_is('names?')}|\bname\s+of\b"
        ),
    ),
    # An e-mail address (not git's "git@github.com:org/repo": a colon or slash after it).
    "~email": (
        "=email",
        # (begun only where a run of such characters begins: one try a run, not one a character)
        re.compile(r"(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![a-z0-9.-]*[:/])"),
        re.compile(
            f"{_what_is('e-?mails?(?: address(?:es)?)?')}|(?:什么|哪个)邮箱|邮箱(?:地址)?(?:是)?(?:多少|什么|啥)"
        ),
    ),
}


def is_value_class(feature: str) -> bool:
    """Whether ``feature`` is a value class (no word, path or concept begins with ``=``)."""
    return feature.startswith("=")


# English names a person or pet by a capitalized name right after "my <relation>" ("My sister
# Emma is getting married", "our dog, Max, …"): only the text as written shows it, so this
# one is read on the raw text. The nouns are the language's everyday kin, social and pet
# words.
_RELATIONS = (
    "sister|brother|sibling|mother|father|mom|mum|dad|parents?|wife|husband|spouse|son|daughter|kid|child|baby|"
    "friend|boss|manager|colleague|co-?worker|teammate|cousin|uncle|aunt|niece|nephew|grand(?:ma|mother|pa|father|son|"
    "daughter)|partner|girlfriend|boyfriend|fianc[eé]e?|neighbou?r|roommate|flatmate|housemate|teacher|doctor|dentist|"
    "therapist|coach|mentor|landlord|landlady|dog|cat|puppy|kitten|pet|horse|parrot|rabbit|hamster"
)
_WRITTEN_NAME = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[Tt]wo|[Tt]hree|[Ff]our)\s+"
    r"(?:(?:little|big|older|younger|elder|best|new|old|late)\s+)?"
    rf"(?:{_RELATIONS})s?\s*,?\s+(?!I\b)[A-Z][a-z]+"
    # "a puppy named Biscuit", "a linter called `ruff`" (not "called by cron", "called twice",
    # "named arguments": a name is capitalized or quoted)
    # (not "we called Alice about the outage", "the client called Redis.set": after a
    # pronoun the verb is a call, and a name followed by ".x" or "'s" is code or an owner)
    r"|(?<!\b[Ww]e )(?<!\bI )(?<![Tt]hey )(?<![Hh]e )(?<![Ss]he )(?<![Yy]ou )(?<!\b[Ii]t )"
    r"\b(?:named|called)\s+(?:(?:him|her|it|them)\s+)?(?:[A-Z][\w-]*+(?![.'][\w])|[`'\"][^`'\"\s]+[`'\"])"
)


def held_values(text: str, raw: str | None = None) -> list[str]:
    """The value classes normalized claim ``text`` holds a value of (each once); ``raw``, the
    text as written, also shows a name by its capital ("My sister Emma")."""
    found: list[str] = []
    tried: set[int] = set()  # ~time and ~date share one pattern: search it once
    for value, held, _asked in VALUE_CLASSES.values():
        if id(held) in tried:
            continue
        tried.add(id(held))
        if value not in found and held.search(text) is not None:
            found.append(value)
    if raw is not None and "=name" not in found and _WRITTEN_NAME.search(raw) is not None:
        found.append("=name")
    return found


def asked_value(concept: str, text: str) -> str | None:
    """The value class of ``concept`` when normalized ``text`` (one clause of a question, the
    one holding the concept's word) asks for its value."""
    entry = VALUE_CLASSES.get(concept)
    if entry is None or entry[2].search(text) is None:
        return None
    return entry[0]
