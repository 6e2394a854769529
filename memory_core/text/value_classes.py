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

from memory_core.lazy_pattern import LazyPattern, lazy
from memory_core.text.named_values import (
    BRAND_ASKED,
    BRAND_HELD,
    CAR_ASKED,
    CAR_HELD,
    DATABASE_ASKED,
    DATABASE_HELD,
    HOMETOWN_ASKED,
    HOMETOWN_HELD,
    LANGUAGE_ASKED,
    LANGUAGE_HELD,
    MODEL_ASKED,
)
from memory_core.text.value_asking import what_is

_AMOUNT_ZH = "[0-9零一二两三四五六七八九十百千万亿]"
# A file's extension before ":<line>" (app.py:120): a source location, not a host and port.
_SOURCE_EXTENSIONS = (
    "(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|rs|go|java|kt|rb|php|cs|c|h|cc|cpp|hpp|m|swift|scala|sql|sh|"
    "md|rst|txt|log|ya?ml|json|toml|ini|cfg|conf|lock|html|css|vue|svelte|ipynb)"
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
_WHEN_HELD = lazy(
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
_WHEN_ASKED = lazy(
    "几点|(?:哪|哪一)(?:年|天)|几月几[号日]|什么时候|啥时候|何时|(?:时间|日期)(?:是|为)?(?:什么|啥|几点|哪天|多少)"
    # which of two opens, starts or ends earlier or later: a comparison of their times
    "|(?:哪|谁)[^,.?!;，。？！；]{0,12}(?:更|最|较|比较)(?:早|晚)"
    rf"|\bwhat\s+{_TIME_NOUN}\b|\bwhich\s+day\b|\bwhat\s+day\b|\bwhat\s+year\b|\bwhich\s+year\b"
    rf"|{what_is('(?:dates?|' + _TIME_NOUN + ')')}"
)

# An occupation stated without the word for it: the Chinese "是做/干 X 的" ("是做医生的",
# "是干建筑工人的"), or a being, working or serving as one of the language's occupation nouns,
# its suffixes of trade (-师, -员, 工人) or its common titles ("是厨师长", "当了老师",
# "在医院当护士"); English "works as a …", "a job as a …", or "is a (…) nurse". A member
# (会员, 成员, 队员) or an expert (高手) is no occupation.
_TRADES_ZH = (
    "[\u4e00-\u9fff]{0,5}?(?:师|(?<![会成队党社学团演])员|工人"
    "|医生|护士|警察|民警|司机|会计|经理|主管|总监|主任|秘书|编辑|记者|教授|律师|老板|农民|军人|保安|导游|翻译|"
    "模特|歌手|主播|厨师长|店长|校长|院长|科长|处长|局长|部长|行长|董事长|总裁|作家|画家|科学家|音乐家|艺术家|"
    "企业家|个体户|自由职业者|创业者|快递小哥|外卖小哥|骑手|保姆|木匠|电工|焊工|技工|学生|"
    # the work of an office by its function ("在一家外企做财务")
    "财务|出纳|销售|行政|人事|客服|文员|前台|采购)"
)
_JOB_HELD = lazy(
    "是(?:做|干)(?!什么|啥|嘛|了|过|得|完|好)[\u4e00-\u9fffa-z]{1,8}?的"
    "|(?:是|当|当了|做|做了|担任|成为|成了|干)(?:一名|一位|一个|个|名|位)?"
    rf"{_TRADES_ZH}(?=[,.!?;:，。！？；：、\s]|$|的|了|呢|啊|呀|吧)"
    r"|\b(?:works?|worked|working)\s+as\s+(?:an?|the)\s+[a-z]"
    r"|\b(?:jobs?|career|position|role)\s+as\s+(?:an?\s+|the\s+)?[a-z]"
    # "is a (…) nurse", and "as a (…) nurse" ("I've been at Google for three years as a UX
    # researcher", "I start as a senior UX researcher in May")
    r"|\b(?:is|am|was|i'm|he's|she's|as)\s+an?\s+(?:[a-z-]+\s+){0,3}?"
    r"(?:engineer|developer|programmer|teacher|nurse|doctor|physician|surgeon|dentist|lawyer|attorney|accountant|"
    r"chef|cook|driver|pilot|firefighter|officer|scientist|researcher|analyst|designer|architect|manager|"
    r"consultant|writer|journalist|editor|artist|musician|photographer|pharmacist|therapist|psychologist|"
    r"professor|lecturer|librarian|electrician|plumber|carpenter|mechanic|technician|farmer|waiter|waitress|"
    r"barista|cashier|clerk|salesperson|realtor|banker|economist|veterinarian|paramedic|soldier|"
    r"bartender|baker|tailor|hairdresser|secretary|receptionist|translator|tutor|coach)s?\b"
)
_JOB_ASKED = lazy(
    "(?:做|干|从事)(?:的是)?(?:什么|啥|哪种|哪一种|哪个|哪一个)(?:样的)?(?:工作|职业|职位|行业|岗位)"
    "|(?:什么|啥|哪种)(?:工作|职业|职位|岗位)|(?:工作|职业|职位|岗位)(?:是|为)?(?:什么|啥|哪)"
    "|(?:做|干)(?:什么|啥|嘛)的"
    # a person's job, not a program's ("what is the cleanup job?")
    r"|\bwhat(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:(?:my|his|her|their|your|our)\s+(?:[a-z-]+'s\s+)?|[a-z-]+'s\s+)"
    r"(?:(?:current|new|old|first|last|previous)\s+)?(?:jobs?|occupations?|professions?|careers?)\b"
    r"|\bfor\s+a\s+living\b|\bline\s+of\s+work\b|\bdo(?:es)?\s+for\s+(?:work|a\s+job)\b"
)
# A level of schooling stated without the word for it: "上的是专科", "就念到高中", "是个博士",
# "本科毕业"; English degree names ("a master's in …", "PhD"). A level alone ("高中同学",
# "初中的时候") is no statement of one's schooling.
_LEVELS_ZH = "(?:小学|初中|高中|中专|职高|技校|大专|专科|本科|学士|硕士|研究生|博士)"
_EDUCATION_HELD = lazy(
    "(?:是|上的是|读的是|念的是|上的|读的|念的|念到|读到|上到|只上到|只有|拿到了?|获得了?|考上了?|在读)"
    f"(?:个|一个|名|位)?{_LEVELS_ZH}(?:学历|毕业|文凭|学位|生)?"
    r"(?=[,.!?;:，。！？；：、\s]|$|的|了|呢|啊|呀|吧|学历|毕业|文凭|学位)"
    f"|{_LEVELS_ZH}(?:学历|毕业|文凭|学位)"
    r"|\b(?:bachelor'?s|master'?s|ph\.?d\.?|doctorate|mba|associate'?s\s+degree|high\s+school\s+diploma)(?![a-z])"
)
_EDUCATION_ASKED = lazy(
    "(?:什么|啥|哪种|多高的?)学历|学历(?:是|为)?(?:什么|啥|怎么样|如何|多高|高不高)"
    "|(?:哪个|哪所|什么|啥)(?:学校|大学|院校)毕业|毕业于(?:哪|什么)|(?:什么|啥)学位|学位(?:是|为)?(?:什么|啥)"
    rf"|{what_is('(?:degrees?|education)')}|\bhighest\s+degree\b"
)

# An age stated in English: "34 years old", "a 7-year-old", "the cache is 3 days old", "she
# turned 40", "I'm 29." ("age" itself is the concept's word; Chinese states an age with 岁, a
# form of the concept too).
_AGE_HELD = lazy(
    r"\b[0-9]{1,3}[\s-]*(?:years?|yrs?|months?|weeks?|days?)[\s-]*old\b"
    r"|\bturn(?:ed|s|ing)?\s+[0-9]{1,3}\b(?!\s*(?:%|percent|minutes?|hours?|days?|weeks?|months?|times?|degrees?))"
    r"|\b(?:i'm|i\s+am|he's|he\s+is|she's|she\s+is|they're|they\s+are)\s+[0-9]{1,2}(?!\.?[0-9])(?=\s*(?:[,.!;]|$|now\b|this\b))"
)
# A person's height stated without the word: "一米八", "一米七五", "165cm", "172厘米", "1.75米";
# English "5'10\"", "6 feet tall", "5 ft 8", "180 cm". (A length of 50 to 250 centimetres,
# or one to two metres and a bit: not a 15.6-inch screen or a 3-metre table.)
_HEIGHT_HELD = lazy(
    "一米[五六七八九](?:[0-9一二三四五六七八九])?|(?<![0-9.])(?:1[0-9]{2}|2[0-4][0-9]|[5-9][0-9])\\s?(?:cm|厘米|公分)(?![a-z])"
    "|(?<![0-9.])[12]\\.[0-9]{1,2}\\s?(?:米|m)(?![a-z])"
    r"|(?<![0-9.])[4-7]\s?(?:'|ft\b|feet\b|foot\b)\s?(?:[0-9]{1,2}\s?(?:\"|''|in\b|inches\b)?)?(?:\s+tall\b)?"
)
_HEIGHT_ASKED = lazy(rf"多高|身高(?:是|为|有)?多少|个子(?:有)?多高|\bhow\s+tall\b|{what_is('heights?')}")
_AGE_ASKED = lazy(rf"\bhow\s+old\b|{what_is('ages?')}")

# A distance stated without the word: "三公里", "5 km", "400 miles" (not metres alone: a
# room's, a table's or a person's height).
_DISTANCE_HELD = lazy(
    f"{_AMOUNT_ZH}\\s?(?:多)?(?:公里|千米|英里)"
    r"|(?<![\w.])[0-9]+(?:\.[0-9]+)?\s?(?:km|kms|kilometers?|kilometres?|miles?|mi)\b"
)
_DISTANCE_ASKED = lazy(
    rf"多远|远不远|距离(?:是|有)?多少|多少公里|\bhow\s+far\b|\bhow\s+many\s+(?:miles|kilometers|kilometres|km)\b"
    rf"|{what_is('distances?')}"
)
# English asks some attributes by a phrase holding no word of them: "how old is my cousin?"
# the age, "what does my brother do for a living?" the job (Chinese ones are words of the
# query's dictionary, :data:`memory_core.text.concepts.CHINESE_ASKING`). Query side only.
ENGLISH_ASKING: tuple[tuple[str, LazyPattern], ...] = (
    ("~age", lazy(r"\bhow\s+old\b")),
    ("~height", lazy(r"\bhow\s+tall\b")),
    ("~job", lazy(r"\bfor\s+a\s+living\b|\bline\s+of\s+work\b|\bdo(?:es)?\s+for\s+(?:work|a\s+job)\b")),
    ("~distance", lazy(r"\bhow\s+far\b")),
    ("~hometown", lazy(r"\bwhere\b[^?]{1,60}\b(?:(?:originally\s+)?from|grow\s+up|grew\s+up|born)\s*\??\s*$")),
    # A car is told by its maker ("a Subaru Outback", "斯巴鲁森林人"): "what car do I drive?",
    # "我开的什么车？" ask the brand (not 车次, 车位, 车票 …, nor "what car park")
)


def asked_by_phrase(text: str) -> list[str]:
    """The attribute concepts normalized English ``text`` asks by a phrase alone."""
    if not any(word in text for word in ("old", "living", "work", "tall", "far", "from", "grow", "grew", "born")):
        return []
    return [concept for concept, phrase in ENGLISH_ASKING if phrase.search(text) is not None]


# attribute concept -> (its value class feature, a claim holding a value, a question asking one)
VALUE_CLASSES: dict[str, tuple[str, LazyPattern, LazyPattern]] = {
    "~color": (
        "=color",
        lazy(
            "[红橙黄绿青蓝紫粉棕褐黑白灰银金]色"
            # not one part of a compound or a path: red-black, blue-green, /srv/red, node-red
            r"|(?<![-/])\b(?:red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|gr[ae]y|silver|beige|"
            r"navy|turquoise|maroon)\b(?![-/])"
        ),
        lazy(
            "(?:什么|啥|哪种|哪个|哪一种|什么样的?)颜色|颜色(?:是|为)?(?:什么|啥|哪)"
            rf"|{what_is('colou?rs?')}"
        ),
    ),
    "~cost": (
        "=cost",
        lazy(
            # "$1" is a shell's or awk's argument far more often than a price: a dollar amount
            # has two digits or a decimal part. 元 of 元组, 元素, 二元运算 … is no money.
            r"[¥€£]\s?[0-9]|\$\s?(?:[0-9]{2,}|[0-9][.,][0-9])"
            rf"|{_AMOUNT_ZH}\s?(?:元(?![组素运算表达次函数件旦数]|[一二三四]次)|块钱|美元|美金|欧元|英镑|日元|港币|港元)"
            # 块 is money only where no noun it counts follows ("6500块，", "三十多块的", not
            # "一块手表", "两块蛋糕", "8块 SSD"), after more than a lone 一 ("我们一块去" is
            # "together") and no ordinal ("第3块"); begun where the amount begins (one try a run)
            # a price in 万 after the word of a price or of spending ("落地价二十二万", "花了3万")
            rf"|(?:价|价格|价钱|售价|花了|花掉了?|卖了)(?:是|为|大概|大约|约)?{_AMOUNT_ZH}+(?:\.[0-9]+)?多?万"
            # a bare amount after the word of a price, a rent or a fee, or of spending ("花了四百多，",
            # "房租涨到了每月四千五"): of more than one numeral or digit, and counting nothing after
            # it ("花了三十分钟", "卖了二十台", "价格是3个月前的" are no money)
            rf"|(?:价格|价钱|售价|房租|租金|月租|学费|花了|花掉了?|付了|卖了)"
            rf"(?:是|为|大概|大约|约|涨到了?|降到了?|涨了|每月|每个月|一个月|一年|每年){{0,3}}"
            rf"(?:[0-9]{{2,}}(?:\.[0-9]+)?|{_AMOUNT_ZH}{{2,}})多?"
            r"(?=[,.;:!?，。；：！？、)）]|\s|$|左右|的样子)"
            rf"|(?<![0-9零一二两三四五六七八九十百千万亿第])(?:[0-9]+|{_AMOUNT_ZH}{{2,}})多?块"
            r"(?=[,.;:!?，。；：！？、)）]|\s(?![a-z0-9])|$|左右|的)"
            r"|[0-9]\s?(?:dollars?|bucks|euros?|pounds|yuan|rmb|usd|eur|gbp|cny)\b"
        ),
        lazy(
            "多少钱|多少块钱|贵不贵|(?:价格|价钱|费用|花费|成本|售价)(?:是|为|要)?多少"
            # which of two is cheaper or dearer: a comparison of their prices
            "|(?:哪|谁)[^,.?!;，。？！；]{0,12}(?:更|最|比较)?(?:贵|便宜)"
            rf"|\bhow\s+much\b|{what_is('(?:price|cost|fee)s?')}"
            r"|\b(?:which|what)\b[^,.?!;]{0,40}\b(?:cheaper|cheapest|pricier|more\s+expensive|most\s+expensive)\b"
        ),
    ),
    # A port after a host that is one: localhost, an IP address, a URL's host, a dotted name
    # that is no source file ("db.internal:5432", not "api.py:120"), a docker port mapping
    # ("-p 8080:80") or a colon alone (":3000"). A single word before a colon is too often
    # something else ("postgres:15" an image tag, "TODO:1234", "pid:4567").
    "~port": (
        "=port",
        lazy(
            r"(?:\blocalhost|\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}|\[[0-9a-f:]+\]|://[a-z0-9.-]+"
            # (a dotted name begun only where its run begins: one try a run, not one a character)
            rf"|(?<![a-z0-9.-])[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?!{_SOURCE_EXTENSIONS}:)[a-z][a-z0-9-]*)"
            r":[0-9]{2,5}(?![\w:-]|\.\w)"
            r"|(?:^|[\s(])-p\s+[0-9]{2,5}:[0-9]{2,5}\b"
            r"|(?:^|[\s(]):[0-9]{2,5}(?![\w:-]|\.\w)"
        ),
        lazy(f"{what_is('ports?(?: numbers?)?')}|(?:什么|哪个|几号)端口|端口(?:号)?(?:是)?(?:多少|什么|几)"),
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
        lazy(
            "(?<![被尖大喊吼惊鸣乱在])叫(?:做)?"
            "(?![停价卖苦醒好喊嚷骂车号来起住过回去出声人我你他她它们的了着啊]|上(?!海)|外卖|服务员|救护|医生|警察)"
            "\\s*(?:[\\u4e00-\\u9fff]{2,12}|[a-z][\\w.-]*)(?=[\\s,.!?;:，。！？；：、)）]|$)"
        ),
        lazy(
            "什么名字|啥名字|名字(?:是|叫)?(?:什么|啥)|叫什么|叫啥|姓名(?:是)?(?:什么|啥)"
            rf"|{what_is('names?')}|\bname\s+of\b"
        ),
    ),
    "~job": ("=job", _JOB_HELD, _JOB_ASKED),
    "~age": ("=age", _AGE_HELD, _AGE_ASKED),
    "~height": ("=height", _HEIGHT_HELD, _HEIGHT_ASKED),
    "~education": ("=education", _EDUCATION_HELD, _EDUCATION_ASKED),
    "~distance": ("=distance", _DISTANCE_HELD, _DISTANCE_ASKED),
    "~hometown": ("=hometown", HOMETOWN_HELD, HOMETOWN_ASKED),
    "~brand": ("=brand", BRAND_HELD, BRAND_ASKED),
    # A car is told by its maker ("a Subaru Outback"): the word itself, a subject of the
    # question, takes the class as its alternative when "what car …", "什么车" asks which.
    **dict.fromkeys(("car", "车", "汽车"), ("=car", CAR_HELD, CAR_ASKED)),
    "~language": ("=language", LANGUAGE_HELD, LANGUAGE_ASKED),
    "~database": ("=database", DATABASE_HELD, DATABASE_ASKED),
    # A product's model is told by its maker's name with the model's ("小米14", "iPhone 13").
    "~model_number": ("=brand", BRAND_HELD, MODEL_ASKED),
    # An e-mail address (not git's "git@github.com:org/repo": a colon or slash after it).
    "~email": (
        "=email",
        # (begun only where a run of such characters begins: one try a run, not one a character)
        lazy(r"(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![a-z0-9.-]*[:/])"),
        lazy(f"{what_is('e-?mails?(?: address(?:es)?)?')}|(?:什么|哪个)邮箱|邮箱(?:地址)?(?:是)?(?:多少|什么|啥)"),
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
_WRITTEN_NAME = lazy(
    rf"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[Tt]wo|[Tt]hree|[Ff]our)\s+"
    r"(?:(?:little|big|older|younger|elder|best|new|old|late)\s+)?"
    rf"(?:{_RELATIONS})s?\s*,?\s+(?!I\b)[A-Z][a-z]+"
    # "Tom's wife, Anna, …": a named person's relation, named
    rf"|\b[A-Z][a-z]+'s\s+(?:(?:little|big|older|younger|elder|best|new|old|late)\s+)?(?:{_RELATIONS})s?\s*,?\s+"
    r"(?!I\b)[A-Z][a-z]+"
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
