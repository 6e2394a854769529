"""Word lists and phrase patterns the tokenizer and the query plan share.

Filler words are dropped everywhere (index and query alike, so both sides agree).
Recall framing ("do you remember", "还记得", "多少"), reset phrases, bare continuations
and pronouns that point back at an earlier subject only matter in queries.
"""

from __future__ import annotations

import re

# English filler: function words, pronouns, auxiliaries, question words and chat noise.
ENGLISH_STOP: frozenset[str] = frozenset(
    """
a about above after again against all also am an and any anything are aren't as at be
because been before being below between both but by can can't cannot could couldn't did
didn't do does doesn't doing don't done down during each either else etc even ever every
everything few for from further get gets getting got gotten had hadn't has hasn't have
haven't having he he'd he's her here hers herself him himself his how however i i'd i'll
i'm i've if in into is isn't it it's its itself just let let's lets me might mine more
most much must my myself neither no nor not nothing now of off oh ok okay on once one only
or other others our ours ourselves out over own per please quite rather really same shall
she she's should shouldn't so some somebody someone something such than thank thanks that
that's the their theirs them themselves then there there's these they they'd they're
this those though through thus to too under until up upon us very via was wasn't we we'd
we'll we're we've well were weren't what what's whatever when whenever where whether which
while who who's whom whose why will with within without won't would wouldn't yeah yes yet
you you'd you'll you're you've your yours yourself yourselves hey hi hello hmm uh um
actually basically maybe perhaps anyway anyone anybody already still lot lots many
go goes going gone went make makes made use uses used using want wants wanted think
thinks thought know knows knew tell told say says said ask asked kind sort thing things
stuff way sure see haha hahaha lol alright yep nope wow ah aha oops ugh okey
look looks looked looking feel feels felt find finds likely always never sometimes often usually
""".split()
)

# Chinese filler that may appear inside a run of Chinese text. Multi-character entries are
# matched before single characters; a match ends the current segment.
CHINESE_STOP_WORDS: frozenset[str] = frozenset(
    """
什么 怎么 怎样 怎么样 如何 为什么 为何 哪个 哪些 哪里 哪儿 那个 这个 那些 这些 那么 这么
一下 一个 一些 一点 可以 能够 知道 我们 你们 他们 她们 它们 自己 现在 已经 因为 所以
但是 而且 如果 就是 不是 没有 时候 之前 以前 之后 以后 上次 那次 这次 请问 帮我
多少 几个 是否 是不是 有没有 关于 对于 还有 然后 其实 非常 真的 特别 比较 一直 一定 应该
记得 还记得 记不记得 告诉 提醒 回忆 想起 觉得 感觉 感到 好像 可能 大家 东西 事情 你好
有几个 有几 有多少 有哪些 有什么
多久 多长 多长时间 多远 多大 多高 多快 何时 何地 何处 几点 几天 几次 几时 几年 几号 几位 几种
哪一个 哪一 哪天 哪年 哪位 哪种 哪样 哪次 哪台 哪家 哪条 哪款 哪项 哪类 哪边
很多 也许 尤其 极其 其中 其余 相比 相较 比起 两个 更多 更少 更加 更为
来着 到底 究竟 干嘛 干吗 什么样 怎么回事 多老 的话 等等 能不能 会不会 要不要
可不可以 叫什么 为啥 家伙 什么地方 啥地方
以上 以下 低于 高于 超过 不到 大于 小于 等于 至少 最多 多于 少于 不超过 不少于
哪几点 这几点 那几点 有几点 以下几点
这家伙 那家伙
""".split()
)
CHINESE_STOP_CHARS: frozenset[str] = frozenset("的了是在和与及或跟吗呢吧啊呀哦嗯我你他她它么哪谁也啥很诶嘿")
# Function characters that say nothing when they stand alone between filler ("对，…",
# "我还可以…", "…要多久", "服务器上"): adverbs, auxiliaries, pronouns, locative particles and
# question words. Inside a longer run they stay part of its bigrams (还原, 就业, 上线), so
# only a lone one is dropped; a lone content character such as 猫 still counts.
CHINESE_LONE_FILLER: frozenset[str] = frozenset(
    "还就都又才再被把让将这那其着过得地啦嘛呗喔哈对好不没要会能想去来说用有给到从向为以而但却所"
    "因如若则即并且等上下里中内外前后个此该每各某些啥咋哎呃多几"
    "人做干叫看真最超太挺蛮"
)
# Common words that contain one of those characters and must not be cut apart.
CHINESE_KEEP_WORDS: frozenset[str] = frozenset(
    "参与 给予 与会 和平 和谐 温和 暖和 在线 存在 正在 所在 实在 在于 于是 总是 可是 要是 凡是 "
    "自我 忘我 其他 他人 方便 贵重 很贵重 更贵重 较贵重 几点建议 几点意见 几点经验 几点看法 几点要求 "
    # words of things and acts holding a particle's or a pronoun's character (吉他 is no 他);
    # not one whose character also ends or starts a common word beside it (和+解决, 在+意大利,
    # 题目+的, 涉及+时, 的+确认): kept whole, those would join two words
    "吉他 酒吧 网吧 吧台 跟踪 跟进 跟随 在乎 来不及 "
    # aunts, not mothers (妈 alone is one: memory_core.text.concepts)
    "姑妈 姨妈 舅妈 "
    # words that open as a count and a measure word (memory_core.text.cjk_words)
    "一部分 一块儿 一家子".split()
)

# Asking for a suggestion, and the praise of what is asked for ("suggest a *good* book").
_PRAISE = r"(?:good|great|nice|new|better|best|decent|fun|easy|quick|simple|cool)"
_ADVISE = rf"(?:recommend|suggest|advise)(?:\s+(?:me|us))?(?:\s+(?:a|an|some|any|a\s+few|few|one))?(?:\s+{_PRAISE})?"

# Conversational framing around a recall request. Removed from queries only, so that
# "memory" or "recall" as a technical subject still counts everywhere else.
_FRAMING_PATTERNS = (
    r"\b(?:do|did|can|could|would|will)\s+(?:you|u)\s+(?:still\s+)?(?:remember|recall|know)\b",
    r"\b(?:you|u)\s+remember\b",
    r"\bremember\s+(?:when|what|that|how|where|which|who|if|whether)\b",
    r"^\s*(?:please\s+)?(?:remind\s+me|recall|remember)\b",
    r"\bremind\s+me\b",
    r"\bwhat\s+(?:did|do)\s+(?:i|we)\s+(?:say|tell\s+you|mention|decide|agree)\b",
    r"\bwhat\s+do\s+you\s+know\b",
    r"\btell\s+me\b",
    # Asking for advice ("can you recommend …", "any tips for …"): the act asked of the
    # assistant, not what the memory holds ("did my sister give me any tips …?" asks it).
    # (with the praise of what is asked for: "recommend a *good* book" asks for no good thing)
    rf"\b(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?{_ADVISE}"
    rf"|what\s+(?:would|do|should|could)\s+you\s+{_ADVISE}|^\s*(?:please\s+)?{_ADVISE}"
    rf"|(?:(?:^|(?<=[.!?]))\s*(?:please\s+)?(?:any|some|give\s+me\s+(?:some|a\s+few|any))"
    rf"|(?:can|could|would)\s+you\s+give\s+me\s+(?:some|a\s+few|any)|(?:do\s+you\s+have|got)\s+any)"
    rf"(?:\s+{_PRAISE})?\s+(?:tips|ideas|suggestions|recommendations|advice))\b",
    r"(?:能|可以|能不能|可不可以|给我|帮我)推荐(?:一下|几个|一些|点)?|有(?:什么|没有)(?:好的)?(?:建议|推荐)"
    r"|给(?:我)?(?:点|些|一些|几条)(?:建议|意见)",
    # "How long has it been since …", "which came first, …": a distance or an order in time is
    # read off the claims' dates, never stated with these words.
    r"\bhow\s+(?:long|many\s+(?:days|weeks|months|years))\s+(?:has|had|is|was)\s+it\s+been\b",
    r"\b(?:which|what|who)\s+(?:one\s+)?(?:came|comes|happened|happens|was|were|is)\s+(?:first|earlier|last)\b",
    # "How long/many/old ...": the answer states a number, never the adjective.
    r"\bhow\s+(?:long|many|much|often|old|far|big|tall|large|soon)\b",
    # "… do for a living?": asks the job (memory_core.text.value_classes.ENGLISH_ASKING)
    r"\bfor\s+a\s+living\b",
    r"\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b",
    r"\bdo\s+you\s+have\s+(?:any\s+)?(?:notes?|memories|memory)\s+(?:of|on|about)\b",
    # "先买的电脑还是先去看的牙医？": which of two came first
    r"先(?=[^,.?!;，。？！；]{1,30}还是先)|(?<=还是)先",
    r"(?:你)?(?:还)?记(?:不记)?得",
    r"你知道",
    r"我?(?:想|想要)(?:问|知道|了解)(?:一下)?",
    r"告诉我",
    r"提醒我",
    r"我(?:之前|以前|上次)?(?:说过|提到过|讲过|提过)",
    r"多少(?!钱|块钱)",  # "多少钱", "多少块钱" ask a cost (concepts.CHINESE_ASKING)
)
FRAMING = re.compile("|".join(f"(?:{p})" for p in _FRAMING_PATTERNS), re.IGNORECASE)
# Every match of FRAMING in an ASCII text holds one of these words (the Chinese patterns
# need Chinese characters): a lower-case ASCII query holding none is left as it is without
# running the pattern at every position (see ``memory_core.text.asking.query_text``).
FRAMING_WORDS = (
    "remember",
    "recall",
    "know",
    "remind",
    "say",
    "tell",
    "recommend",
    "suggest",
    "advise",
    "tips",
    "ideas",
    "suggestions",
    "recommendations",
    "advice",
    "mention",
    "decide",
    "agree",
    "how",
    "first",
    "earlier",
    "last",
    "kind",
    "type",
    "sort",
    "have",
    "living",
)

# An aspectual verb before the act it begins or ends, in a question of time ("when did I
# *start* learning Spanish?", "how long ago did I *quit* smoking?"): the act is the event, and
# its date is the claim's, which states it as often without the verb ("I signed up for a
# Spanish course"). Elsewhere the verb stays ("why did I start running?" is answered by
# "I've started running because …").
ASPECT = re.compile(
    r"\b(?:start|starts|started|begin|begins|began|begun|stop|stops|stopped|quit|finish|finishes|finished"
    r"|keep|keeps|kept|continue|continues|continued)(?=\s+[a-z]+ing\b)"
)
ASKS_TIME = re.compile(r"\b(?:when|since|how\s+long|ago)\b")
# Every match of ASPECT holds one of these, every text ASKS_TIME matches one of the others.
ASPECT_WORDS = ("start", "begin", "began", "begun", "stop", "quit", "finish", "keep", "kept", "continu")
ASKS_TIME_WORDS = ("when", "since", "long", "ago")

# Time said relative to the moment of speaking ("today", "last time", "最近"): the claim's
# "yesterday" is another day than the question's, so these never name what is asked about.
# Removed from queries only (like the framing), so the index does not change.
RELATIVE_TIME = re.compile(
    # "current" as a word, not of an identifier or a flag ("current-user", "--show-current")
    r"(?i)(?<![\w-])current(?![\w-])|"
    r"\b(?:today|tonight|yesterday|tomorrow|lately|recently|nowadays|currently|presently|right\s+now|"
    r"at\s+(?:the\s+)?(?:moment|present)|these\s+days|the\s+other\s+day|"
    r"(?:last|this|next|every|each)\s+(?:time|times|day|days|night|morning|evening|afternoon))\b|"
    # "two weeks ago", "how many days ago", "how long ago": a distance from the moment of speaking
    r"(?<![\w-])(?:(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several|"
    r"a\s+couple\s+of|couple\s+of|[0-9]+)\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\s+)?ago(?![\w-])"
    r"|今天|今晚|昨天|昨晚|明天|前天|后天|最近|刚才|刚刚|这段时间|那段时间|每天|每次|下次|这几天"
)
# Every match of RELATIVE_TIME in an ASCII text holds one of these (as FRAMING_WORDS).
RELATIVE_TIME_WORDS = (
    "day",
    "night",
    "tomorrow",
    "lately",
    "recently",
    "current",
    "presently",
    "now",
    "moment",
    "present",
    "time",
    "morning",
    "evening",
    "afternoon",
    "ago",
)

# Phrases that end the current topic: nothing earlier is inherited after them.
RESET = re.compile(
    r"(?i)\b(?:new\s+topic|different\s+topic|change\s+(?:of\s+)?(?:the\s+)?(?:topic|subject)|"
    r"something\s+else|unrelated|never\s*mind|forget\s+(?:that|it|about\s+that)|"
    r"start\s+over|switch(?:ing)?\s+topics?|moving\s+on)\b"
    r"|换(?:一)?个话题|换话题|另(?:一|外一)?个问题|别的问题|另外一件事|不说这个了|说点别的"
)

# A whole message that only asks to keep going: it names no topic of its own.
CONTINUATION = re.compile(
    r"(?i)^\s*(?:(?:ok(?:ay)?|yes|yeah|sure|please|and|so|then|well)[\s,.!]*)*"
    r"(?:continue|go\s+on|keep\s+going|carry\s+on|proceed|resume|go\s+ahead|next|more|"
    r"and\s+then|what\s+else|anything\s+else|and|继续|接着|然后呢|然后|还有呢|下一步|接下来)?"
    r"[\s,.!?。！？…]*(?:please)?[\s,.!?。！？…]*$"
)

# Pronouns that refer back to the subject under discussion.
ANAPHORA = re.compile(r"(?i)\b(?:it|its|it's|they|them|their)\b|它(?:们|的)?|其")

# Words removed from queries only (the index keeps them): "like" in conversation compares
# or hedges ("it feels like", "seems like", "a sword like the heroes'"); as the verb of
# taste ("I like math") it names nothing the thing liked does not.
QUERY_FILLER: frozenset[str] = frozenset({"like"})

# "What I actually want to ask is ...": only the words after the last such marker are the
# question; everything before it is preamble the user has just set aside.
# The asking verbs: ask, say, know, find out, understand, make clear, confirm.
_ASK_EN = r"(?:ask|say|know|find\s+out|understand)"
_ASK_ZH = r"(?:问|说|知道|了解|弄清楚|搞清楚|弄明白|搞明白|确认)"
SELF_CORRECTION = re.compile(
    rf"(?i)\b(?:what\s+i\s+(?:really\s+|actually\s+)?(?:want(?:ed)?|meant|mean|need(?:ed)?)\s+to\s+{_ASK_EN}\s+(?:is|was)|"
    r"my\s+(?:real|actual)\s+question\s+(?:is|was)|(?:sorry,?\s+)?i\s+meant\s+to\s+ask)\b[\s:,]*"
    # 我真正想问的是 / 我本来想说的是 / 我真正想要了解的是: "what I (actually) want to ask is".
    rf"|(?:我)?(?:真正|其实|实际上?|本来)?(?:是)?(?:想要|想|要){_ASK_ZH}的(?:问题)?(?:是|其实是)[:：,，]?"
    # 我其实是想搞清楚 / 我实际上想问: "actually, I want to ask".
    rf"|(?:我)?(?:真正|其实|实际上?)是?(?:想要|想){_ASK_ZH}(?:一下)?[:：,，]?"
    # 我想问一下： with the question after the colon: "I'd like to ask:".
    r"|我想问(?:一下)?[:：,，]"
    # 我真正的问题是 / 实际上我那个问题是: "my actual question is".
    r"|我(?:的)?(?:真正|实际)的?问题(?:是|其实是)[:：,，]?"
    r"|(?:其实|实际上?)我?(?:的|那个)?问题(?:是|其实是)[:：,，]?"
    # "... . Wait, ..." / "……。等等，……": a sentence that starts by interrupting itself.
    r"|(?:^|(?<=[.!?。！？]))\s*(?:wait|hold\s+on)\s*[,:!]\s*"
    r"|(?:^|(?<=[.!?。！？]))\s*(?:等等|等一下|等一等)\s*[:：,，]"
)
# Every match of SELF_CORRECTION in an ASCII text holds one of these (as FRAMING_WORDS).
SELF_CORRECTION_WORDS = ("want", "mean", "need", "question", "wait", "hold")
# "……。对了，……" / "... . By the way, ...": a sentence that turns to another matter. What
# follows is the question only when it is one and stands on its own (no "it" pointing back
# into what came before: "The billing API times out. By the way, what port does it use?").
PIVOT = re.compile(
    r"(?:^|(?<=[.!?。！？]))\s*(?:对了|话说回来|顺便问一下|顺便问下|顺便问问|言归正传|说正事|回到正题|说回正题)\s*[:：,，]"
    r"|(?i:(?:^|(?<=[.!?]))\s*(?:by\s+the\s+way|btw)\s*[,:]\s*)"
)
# Every match of PIVOT in an ASCII text holds one of these.
PIVOT_WORDS = ("way", "btw")
# A text that asks: a question mark, or a Chinese question word.
ASKS = re.compile("[?？]\\s*$|吗|什么|哪|几|多少|谁|怎么|何时")

# Words joining alternatives ("SQLite or PostgreSQL", "A和B哪个更大"): a claim about either
# side may answer, so the side it does not mention is not held against it.
ENGLISH_CONJUNCTIONS = frozenset({"and", "or", "vs", "versus"})
CHINESE_CONJUNCTIONS = frozenset({"和", "与", "跟", "或", "还是", "或者", "以及", "及"})
