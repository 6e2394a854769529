"""Chinese sentence rules for :mod:`memory_core.capture.statements`.

Chinese has no spaces to split words on, so the features are marker words found in the
sentence (whitespace removed, punctuation folded to ASCII): "以后", "每次", "必须", "不要",
"吗" … Marker lists are tuples searched with ``str.find``; only a few structural patterns
are regular expressions (see ``statement_text``). :func:`classify` returns ``(kind,
reason)`` like the English rules; the order of the checks is the explanation: recall,
explicit cue, question, quote, chatter, preference, decision, rule (strong modal,
prohibition, standing marker), narration, complaint, convention, one-off task.
"""

from __future__ import annotations

import re

from memory_core.capture.statement_text import HEADER, TO_ASCII, Verdict, any_of, ends_with, first_of, fold, words

# A leading (?!\0) keeps re from building a 64K-entry charset of the CJK first characters.
_QUOTED = re.compile(r'"[^"\n]{0,300}"')
_SPACE = re.compile(r"\s+")
_RECALL_SAID = re.compile(r"(?!\0)(?:说|讲|提|定|约定|决定)过?的?(?:什么|啥|哪些)")
_FIXING = re.compile(
    r"(?!\0)(?:修复?|解决|处理|排查|定位)(?:一个|这个|那个|个)?"
    r"(?:bug|Bug|BUG|问题|错误|报错|异常|崩溃)"
)
_PICK = re.compile(r"(?!\0)(?:就用|就选|就定|改用|换成|切到|迁移到).{1,30}吧")
_ONLY = re.compile(r"只有[^,.]{1,12}?(?:能|可以|才)")
_EDIT_BEFORE = re.compile(r"(?!\0)(?:删除|删|改)[^,.]{0,6}?之?前")

_QUOTE_MARK = "〔引文〕"
_TRAILING = ".!~,;…"
_FILLERS = words(
    "好的 好吧 嗯嗯 嗯 哦 噢 啊 ok OK Ok 对了 另外就是 另外 还有就是 还有 顺便说一下 顺便提一句 顺便 "
    "补充一下 补充 然后 那个 其实 总之 谢谢 多谢 不错 好 行 对 可以 哈哈哈 哈哈 所以 但是 不过"
)
_FREE_FILLERS = frozenset(
    words("对了 另外 还有就是 顺便说一下 顺便提一句 顺便 补充一下 然后 其实 所以 但是 不过 另外就是 嗯 哦")
)
_FILLER_PUNCT = ",.!:~ "
_CHATTER = tuple(
    sorted(
        words(
            "好的 好吧 好 行 行吧 嗯 哦 噢 ok OK 谢谢 多谢 感谢 不错 可以 没问题 对 对的 是的 收到 明白 了解 哈 早上好 "
            "晚上好 你好 辛苦了 棒 很好 太好了 等一下 等等 稍等 继续 就这样吧 就这样 就这么定了 就这么定 算了 跑通了 "
            "搞定了 搞定 完美"
        ),
        key=len,
        reverse=True,
    )
)

_RECALL = ("还记得", "记不记得", "来着", "提醒我", "你记得", "回忆一下")
_CUES = (
    ("千万别忘了", True),
    ("千万不要忘记", True),
    ("不要忘记", True),
    ("不要忘了", True),
    ("别忘了", True),
    ("请记住", True),
    ("记住", True),
    ("记一下", True),
    ("记下来", True),
    ("记下", True),
    ("记好", True),
    ("记着", True),
    ("记牢", True),
    ("备注", True),
    ("请记得", False),
    ("记得", False),
)
_COLON_CUES = ("注意", "提醒一下", "提醒", "友情提示", "备忘")
_LIST_LEADS = ("这些", "这几点", "以下", "下面")
_QUESTION_ENDS = ("?", "吗", "么", "呢", "没有", "好不好", "对不对", "行不行", "是不是")
_QUESTION_STARTS = words(
    "为什么 为啥 怎么 怎样 如何 哪 什么 谁 多少 是否 能否 可否 有没有 是不是 要不要 能不能 "
    "会不会 可不可以 用不用 该不该 咋"
)
_A_NOT_A = words("是不是 要不要 能不能 会不会 可不可以 有没有 用不用 该不该 对不对 好不好 行不行")
_CONCESSIVES = ("不管", "无论", "不论")
_INTERROGATIVES = ("哪个", "哪些", "哪里", "哪儿", "哪一", "什么", "怎么", "怎样", "多少", "为什么", "为啥", "谁")
_POLITE_TAGS = ("好吗", "行吗", "可以吗", "好不好", "行不行", "OK吗", "ok吗")
_HEDGES = ("也许", "或许", "可能可以", "不确定", "我觉得", "感觉", "好像", "似乎", "不知道")
_REPORTERS = words(
    "文档 README readme 注释 报错 错误提示 提示 日志 输出 工单 说明 手册 教程 博客 他 她 他们 同事 "
    "老板 领导 有人 别人 你 官方 网上"
)
_REPORT_PLACES = ("之前", "刚才", "以前", "里", "上", "中")
_REPORT_VERBS = ("写的是", "写着", "写道", "说", "提示", "显示", "提到", "建议")

_DEFERRAL = (
    "以后再",
    "回头再",
    "之后再",
    "有空再",
    "有时间再",
    "晚点再",
    "等会再",
    "改天",
    "下次再说",
    "以后有空",
    "以后有时间",
)
_NEG_CHATTER = words("别担心 不要紧 别管 不用了 不要了 别急 别着急 不客气 没关系 别客气 不用谢")

_PREF_ADVERBS = ("个人", "比较", "还是", "更", "一般", "通常", "一直", "向来", "真的", "其实", "都", "也", "挺", "最")
_PREF_VERBS = ("喜欢", "偏好", "偏爱", "倾向于", "倾向", "习惯", "希望", "讨厌", "受不了", "愿意")
_PREF_MORE = ("喜欢", "倾向", "愿意", "想", "偏向")
_PREF_WORDS = ("宁可", "宁愿", "我的偏好")
_DECISIONS = (
    "决定",
    "定了",
    "定下来",
    "定成",
    "定为",
    "定在",
    "商量好",
    "说好了",
    "拍板",
    "敲定",
    "选定",
    "不再支持",
    "放弃支持",
    "不再用",
    "不再使用",
    "不再维护",
    "不再需要",
)
_PLANS = tuple(
    f"{a}{b}{c}"
    for a in ("准备", "打算", "计划")
    for b in ("", "全部", "都")
    for c in ("迁到", "迁移到", "换成", "改用", "切到")
)

_STANDING = (
    "今后",
    "往后",
    "从现在起",
    "从现在开始",
    "从今天起",
    "从今天开始",
    "从今往后",
    "之后都",
    "每次",
    "每一次",
    "每个",
    "每一个",
    "每条",
    "所有",
    "一律",
    "统一",
    "永远",
    "始终",
    "默认",
    "凡是",
    "任何时候",
    "下次",
)
_BEFORE_FIRST = tuple(f"前{b}{c}" for b in ("", "都") for c in ("先", "要", "得", "必须"))
_EVENTS_BEFORE = tuple(
    f"{event}{before}"
    for event in words("提交 合并 发版 发布 推送 push commit 上线 部署 提PR 开PR 改代码 写代码 动手")
    for before in ("前", "之前")
)
_NOT_BEFORE_LATER = frozenset("0123456789一二三四五六七八九十几天点钟周月年个")  # "三天以后" is a date, not a rule
_STRONG = words(
    "必须 务必 一定要 一定得 千万要 严禁 禁止 不允许 不许 不准 一律 只允许 仅允许 不得 统一用 "
    "统一使用 统一放 统一写 统一加"
)
_PROHIBITIONS = ("千万别", "永远不要", "绝对不要", "尽量不要", "尽量别", "不要", "避免", "不可以", "不能", "不用")
_NOT_BIE_BEFORE = frozenset("特区分类级识告派性鉴辨差")  # 特别, 区别 … are not "don't"
_NOT_BIE_AFTER = frozenset("人的处家")  # 别人, 别的 …
_WEAK = ("应该", "应当", "需要", "最好", "尽量", "只能", "只用")
_DEI_AFTER = frozenset("先用跑写加有带改放")  # 得 as "must": 得先, 得用 …
_DEICTICS = (
    "那个",
    "这些",
    "那些",
    "它",
    "这次",
    "这回",
    "这一次",
    "先不",
    "先别",
    "暂时",
    "目前先",
    "刚才",
    "刚刚",
    "上一个",
    "上个",
    "前一个",
    "另一个",
    "一下",
    "这段",
    "这行",
    "这块",
    "这里的",
    "这儿",
)
_SCOPE_NOUNS = ("项目", "仓库", "库", "团队", "组", "服务", "工程", "repo", "代码库")
_ONE_OFF = ("一下", "一遍", "这次", "这回", "顺便", "再试", "再跑", "帮我", "帮忙", "麻烦")
_PAST_TIMES = words(
    "昨天 前天 刚才 刚刚 上次 上周 上个月 上午 早上 今早 今天早上 那天 当时 那时 后来 一开始 我们以前 我以前 已经"
)
_PAST_LE = frozenset("试跑看改装查换推删加写点遇碰发现花用做弄修提开关出")  # V了
_PAST_GUO = frozenset("试跑看改装查换推删加写做弄修用")  # V过
_FAILURES = words(
    "报错 崩溃 崩了 失败 挂了 挂掉 出错 错误 卡住 卡死 卡在 超时 闪退 跑不通 跑不起来 起不来 跑不完 "
    "不工作 不能用 用不了 不行 有问题 出问题 问题 bug Bug BUG 异常 红了 炸了 太慢 很慢 变慢 太旧 烦 "
    "坏了 段错误 死循环 内存溢出 OOM 不稳定 抽风 不对 奇怪"
)
_FAILURE_COMPOUNDS = ("信息", "提示", "处理", "码", "日志", "消息", "页面", "类型", "用例")  # 报错信息 is a noun
_SUBJECTS = words(
    "我们公司的服务 咱们这个项目 我们的服务 我们这边 我们这里 我们组 我们团队 我们公司 我们项目 "
    "我们仓库 我们 咱们 团队 公司 这个项目 本项目 该项目 项目里 项目中 这个仓库 本仓库 仓库里 "
    "这个库 这个服务 这边"
)
_PRACTICES = words(
    "一直是 都是 向来是 一般是 通常是 使用 采用 基于 跑在 部署 发布 发版 遵循 按照 支持 命名 放在 "
    "上线 打包 习惯 遵守 维护 用 写 走"
)
_CONVENTION_NOUNS = ("命名", "规范", "约定", "惯例", "风格", "格式", "规矩", "规则", "原则", "标准", "流程")
_CONVENTION_LINKS = ("是", "为", "用", "都", "遵循", ":")
_TOPIC_VERBS = ("使用", "写成", "放在", "放到", "采用", "部署在", "遵循", "用", "写")
_TOPIC_STOP = frozenset(",.我你他它这那")
_TOPIC_BAD_START = frozenset("给把将帮让去跑先再请")
_TOPIC_BAD_NEXT = ("的", "了", "过", "一下")
_SCOPES = tuple(
    f"{owner}{thing}{place}"
    for owner in words("这个 本 我们的 我们 咱们")
    for thing in words("项目 仓库 代码库 库 团队 组 服务 repo")
    for place in words("里 中 内 下 上")
)
_POLICY_STARTS = words("统一用 优先使用 优先用 尽量用 默认用 使用 改用 都用 只用 采用 用")  # longest first
_TASK_STARTS = words(
    "帮 麻烦 把 将 给我 你去 你来 你先 去 跑 运行 看 查 检查 修 改 加 删 写 提交 推 合并 部署 重构 "
    "试 打开 继续 实现 更新 安装 装 先 再 重新"
)
_HEADER_NOUNS = ("规矩", "规范", "约定", "规则", "要求", "偏好", "注意事项", "原则", "习惯")
_LABEL_KINDS = {
    "决定": "decision",
    "决策": "decision",
    "规则": "requirement",
    "约定": "convention",
    "规范": "convention",
    "偏好": "preference",
    "要求": "requirement",
}
_STANDING_EACH = frozenset(("每个", "每一个", "所有"))


def classify(sentence: str) -> Verdict:
    """``(kind, reason)`` for one Chinese sentence; see the module docstring."""
    quoted_only, text = _prepare(sentence)
    if quoted_only:
        return None, "quote: the sentence is quoted text"
    core = text.rstrip(_TRAILING)
    if not core or _is_chatter(core):
        return None, "chatter: acknowledgement or small talk"
    if len(core) < 3:
        return None, "too short: fewer than three characters"
    if _recall(core):
        return None, "recall request: asks what was said or decided before"
    cue = _cue(core)
    if cue is not None:
        return cue
    question = _question(core)
    if question:
        asked = core.rstrip("?")
        polite = ends_with(asked, _POLITE_TAGS)
        if polite and _standing(core):
            kind, reason = _forms(asked[: -len(polite)])
            if kind is not None:
                return kind, f"polite standing request: {reason}"
        return None, question
    reported = _reported(core)
    if reported:
        return None, f"quote: reported words ({reported!r})"
    if text.endswith(":") and any_of(text[-10:], _HEADER_NOUNS):
        return HEADER, "rule header introducing a list"
    if core[2:3] == ":" and core[:2] in _LABEL_KINDS:
        kind = _LABEL_KINDS[core[:2]]
        return kind, f"{kind}: labelled {core[:2]!r}"
    return _forms(core)


def is_recall(sentence: str) -> bool:
    return _recall(_SPACE.sub("", fold(sentence, TO_ASCII)))


# --- preparing ---------------------------------------------------------------------------


def _prepare(sentence: str) -> tuple[bool, str]:
    folded = fold(sentence, TO_ASCII)
    replaced = _QUOTED.sub(_QUOTE_MARK, folded)
    text = _SPACE.sub("", replaced).replace("`", "")
    if replaced != folded and len(text.replace(_QUOTE_MARK, "").strip(_TRAILING)) < 3:
        return True, text
    changed = True
    while changed:
        changed = False
        for filler in _FILLERS:
            if text.startswith(filler):
                rest = text[len(filler) :]
                if rest and (rest[0] in _FILLER_PUNCT or filler in _FREE_FILLERS) and rest.lstrip(_FILLER_PUNCT):
                    text = rest.lstrip(_FILLER_PUNCT)
                    changed = True
                    break
    return False, text


def _is_chatter(core: str) -> bool:
    rest = core
    while rest:
        rest = rest.lstrip(_FILLER_PUNCT)
        if not rest.startswith(_CHATTER):
            return not rest
        word = next(w for w in _CHATTER if rest.startswith(w))
        rest = rest[len(word) :]
    return True


# --- rejections and cues ----------------------------------------------------------------


def _recall(core: str) -> bool:
    if any_of(core, _RECALL) or _RECALL_SAID.search(core):
        return True
    pos = core.find("记得")
    return pos >= 0 and any(p in core[pos + 2 : pos + 43] for p in ("吗", "么", "嘛"))


def _cue(core: str) -> Verdict | None:
    for cue, strong in _CUES:
        start = 1 if core.startswith("请") and not cue.startswith("请") else 0
        if core.startswith(cue, start):
            return _cue_body(cue, strong, core[start + len(cue) :].lstrip(":,"))
    for cue in _COLON_CUES:
        if core.startswith(cue) and core[len(cue) : len(cue) + 1] == ":":
            return _cue_body(cue, True, core[len(cue) + 1 :])
    return None


def _cue_body(cue: str, strong: bool, body: str) -> Verdict:
    if not body or (body.startswith(_LIST_LEADS) and len(body) <= 6):
        return HEADER, f"explicit cue {cue!r} introducing a list"
    question = _question(body)
    if question:
        return None, question
    kind, reason = _forms(body)
    if not strong and kind is None and reason.startswith(("one-off", "narration", "failure")):
        return None, reason
    return kind or "fact", f"explicit cue {cue!r}"


def _question(core: str) -> str | None:
    if core.endswith(_QUESTION_ENDS):
        return "question: ends with a question mark or particle"
    if core.startswith(_QUESTION_STARTS):
        return "question: starts with an interrogative"
    asked = any_of(_without_concessive(core), _INTERROGATIVES)
    if asked and not (any_of(core, _STRONG) or _prohibition(core) or _weak(core)):
        return f"question: interrogative {asked!r}"
    found = any_of(core, _A_NOT_A)
    if found:
        return f"question: {found!r}"
    if core.startswith(_HEDGES):
        return "question: hedged or uncertain"
    return None


def _without_concessive(core: str) -> str:
    """ "不管改什么" is "whatever is changed", not a question: drop that clause's question word."""
    for word in _CONCESSIVES:
        pos = core.find(word)
        if pos >= 0:
            clause = core[pos : pos + 12].split(",")[0]
            for asked in _INTERROGATIVES:
                clause = clause.replace(asked, "")
            core = core[:pos] + clause + core[pos + len(core[pos : pos + 12].split(",")[0]) :]
    return core


def _reported(core: str) -> str | None:
    for verb in _REPORT_VERBS:
        start = core.find(verb)
        while start >= 0:
            before, after = core[:start], core[start + len(verb) :]
            if not after.startswith(("一声", "一下")):
                stem = before
                for place in _REPORT_PLACES:
                    if stem.endswith(place):
                        stem = stem[: -len(place)]
                        break
                reporter = ends_with(stem, _REPORTERS)
                if reporter:
                    return before[len(stem) - len(reporter) :] + verb
            start = core.find(verb, start + 1)
    return None


# --- features ------------------------------------------------------------------------------


def _standing(core: str) -> str | None:
    """The earliest standing marker: 以后/每次/统一/默认 …, or "提交前" / "…前先" frames."""
    found = [
        hit for hit in (first_of(core, _STANDING), first_of(core, _BEFORE_FIRST), first_of(core, _EVENTS_BEFORE)) if hit
    ]
    pos = core.find("以后")
    while pos >= 0:
        if pos == 0 or core[pos - 1] not in _NOT_BEFORE_LATER:
            found.append((pos, "以后"))
            break
        pos = core.find("以后", pos + 2)
    edit = _EDIT_BEFORE.search(core)
    if edit:
        found.append((edit.start(), edit.group(0)))
    return min(found)[1] if found else None


def _prohibition(core: str) -> str | None:
    found = first_of(core, _PROHIBITIONS)
    pos = core.find("别")
    while pos >= 0 and (found is None or pos < found[0]):
        if (pos == 0 or core[pos - 1] not in _NOT_BIE_BEFORE) and core[pos + 1 : pos + 2] not in _NOT_BIE_AFTER:
            return "别"
        pos = core.find("别", pos + 1)
    return found[1] if found else None


def _weak(core: str) -> tuple[int, str] | None:
    """Weak modals: 要 (not 想要/需要/要不/要么), 得 before a verb, 应该, 需要 …"""
    found = first_of(core, _WEAK)
    for marker in ("要", "得"):
        pos = core.find(marker)
        while pos >= 0 and (found is None or pos < found[0]):
            nxt = core[pos + 1 : pos + 2]
            if marker == "要" and (pos == 0 or core[pos - 1] not in "想需") and nxt not in ("不", "么"):
                found = (pos, marker)
                break
            if marker == "得" and nxt and nxt in _DEI_AFTER:
                found = (pos, marker)
                break
            pos = core.find(marker, pos + 1)
    return found


def _deictic(core: str) -> tuple[int, str] | None:
    """A word pointing at the current work ("这个", "那个", "这次", "一下"), not "这个项目"."""
    found = first_of(core, _DEICTICS)
    pos = core.find("这个")
    while pos >= 0:
        if not core.startswith(_SCOPE_NOUNS, pos + 2):
            if found is None or pos < found[0]:
                found = (pos, "这个")
            break
        pos = core.find("这个", pos + 2)
    pos = core.find("新的")
    if pos >= 0 and (pos == 0 or core[pos - 1] not in "更最全崭") and (found is None or pos < found[0]):
        found = (pos, "新的")
    return found


def _preference(core: str) -> tuple[int, int, str] | None:
    """``(start, end, words)`` of "我(更)喜欢/偏好/习惯 …", "比起 A 更 …", "宁可 …"."""
    pos = core.find("比起")
    if pos >= 0:
        more = core.find("更", pos + 2, pos + 34)
        if more >= 0 and core.startswith(_PREF_MORE, more + 1):
            liked = next(v for v in _PREF_MORE if core.startswith(v, more + 1))
            return pos, more + 1 + len(liked), core[pos : more + 1 + len(liked)]
    pos = core.find("我")
    while pos >= 0:
        end = pos + 1
        advanced = True
        while advanced:
            advanced = False
            for adverb in _PREF_ADVERBS:
                if core.startswith(adverb, end):
                    end += len(adverb)
                    advanced = True
        for negation in ("不太", "不"):
            if core.startswith(negation, end):
                end += len(negation)
                break
        verb = next((v for v in _PREF_VERBS if core.startswith(v, end)), None)
        if verb:
            return pos, end + len(verb), core[pos : end + len(verb)]
        pos = core.find("我", pos + 1)
    found = first_of(core, _PREF_WORDS)
    return (found[0], found[0] + len(found[1]), found[1]) if found else None


def _decision(core: str) -> str | None:
    found = any_of(core, _DECISIONS) or any_of(core, _PLANS)
    if found:
        return found
    pick = _PICK.search(core)
    return pick.group(0) if pick else None


def _past(core: str) -> str | None:
    found = any_of(core, _PAST_TIMES)
    if found:
        return found
    if core.startswith(("之前", "以前")):
        return core[:2]
    return _past_verb(core)


def _past_verb(core: str) -> str | None:
    for marker, verbs in (("了", _PAST_LE), ("过", _PAST_GUO)):
        pos = core.find(marker, 1)
        while pos >= 0:
            if core[pos - 1] in verbs:
                return core[pos - 1 : pos + 1]
            pos = core.find(marker, pos + 1)
    return "过了" if "过了" in core else None


def _failure(core: str) -> str | None:
    """A failure word, not counting the work of fixing one ("修 bug") or a noun ("报错信息")."""
    text = _FIXING.sub("", core)
    for word in _FAILURES:
        pos = text.find(word)
        while pos >= 0:
            if not text.startswith(_FAILURE_COMPOUNDS, pos + len(word)):
                return word
            pos = text.find(word, pos + 1)
    return None


def _convention(core: str) -> str | None:
    """ "我们用 …", "这个项目统一部署在 …" (a short topic may come first), or "命名是 …"."""
    for subject in _SUBJECTS:
        pos = core.find(subject)
        if pos < 0 or pos > 6 or "," in core[:pos] or "." in core[:pos]:
            continue
        start = pos + len(subject)
        window = core[start : start + 14].split(",")[0].split(".")[0]
        practice = first_of(window, _PRACTICES)
        if practice and practice[0] <= 12:
            return core[pos : start + practice[0] + len(practice[1])]
    for noun in _CONVENTION_NOUNS:
        pos = core.find(noun)
        if pos >= 0 and core.startswith(_CONVENTION_LINKS, pos + len(noun)):
            return noun
    return None


def _topic_comment(core: str) -> str | None:
    """ "提交信息用英文写", "日志统一用 structlog": a noun topic, then how it is done."""
    if core[0] in _TOPIC_BAD_START:
        return None
    for i in range(1, min(len(core), 16)):
        if core[i - 1] in _TOPIC_STOP:
            return None
        verb = next((v for v in _TOPIC_VERBS if core.startswith(v, i)), None)
        if verb and not core.startswith(_TOPIC_BAD_NEXT, i + len(verb)):
            return core[: i + len(verb)]
    return None


# --- the forms ------------------------------------------------------------------------------


def _forms(core: str) -> Verdict:
    """The statement forms for a sentence that is not a question, quote or recall request."""
    for chatter in _NEG_CHATTER:
        if core.startswith(chatter):
            return None, f"chatter: {chatter!r}"
    deferral = any_of(core, _DEFERRAL)
    if deferral:
        return None, f"one-off: deferral ({deferral!r}), not a standing rule"
    deictic = _deictic(core)
    preference = _preference(core)
    if preference and (preference[0] <= 4 or core[preference[0] - 1] in ",;:"):
        rest = core[preference[1] :]
        said = preference[2]
        rest_deictic = _deictic(rest)
        if not rest or (rest_deictic and rest_deictic[0] == 0) or rest.startswith(("这样", "的")) or _failure(rest):
            return None, f"reaction: {said!r} about the current work"
        if deictic and not _standing(core):
            return None, f"one-off request: {said!r} refers to {deictic[1]!r}"
        return "preference", f"preference: {said!r}"
    decision = _decision(core)
    if decision:
        if deictic and not _standing(core):
            return None, f"one-off decision: refers to {deictic[1]!r}"
        return "decision", f"decision: {decision!r}"
    rule = _rule(core, deictic)
    if rule is not None:
        return rule
    past = _past(core)
    if past:
        return None, f"narration: past event ({past!r})"
    failure = _failure(core)
    if failure:
        return None, f"failure complaint: {failure!r} describes a problem, not a rule"
    convention = _convention(core)
    if convention and not (deictic and deictic[1] in ("这次", "这回", "一下", "刚才")):
        return "convention", f"convention: {convention!r}"
    one_off = any_of(core, _ONE_OFF)
    if one_off:
        return None, f"one-off task: {one_off!r} without a standing marker"
    policy = next((word for word in _POLICY_STARTS if core.startswith(word)), None)
    if policy and not deictic:
        return "requirement", f"standing instruction: {policy!r}"
    topic = _topic_comment(core)
    if topic and not deictic:
        return "convention", f"convention: '{topic}…' (topic + practice)"
    weak = _weak(core)
    if (
        weak
        and weak[0] >= 2
        and not deictic
        and not (core.startswith("你") or (core.startswith("我") and not core.startswith("我们")))
    ):
        return "requirement", f"requirement: modal {weak[1]!r}"
    if core.startswith(_TASK_STARTS):
        return None, f"one-off task: imperative {core[:2]!r} without a standing marker"
    scope = any_of(core, _SCOPES)
    if scope and not deictic:
        return "convention", f"convention: scoped statement ({scope!r})"
    return None, "no statement form: not a rule, preference, decision or convention"


def _rule(core: str, deictic: tuple[int, str] | None) -> Verdict | None:
    """Strong modals, prohibitions and standing markers, checked before narration/complaints."""
    standing = _standing(core)
    strong = any_of(core, _STRONG) or ("只有" if _ONLY.search(core) else None)
    prohibition = _prohibition(core)
    weak = _weak(core)
    failure = _failure(core)
    if strong and not (strong.startswith("一定") and "一定是" in core):
        if deictic and not standing:
            return None, f"one-off requirement: {strong!r} refers to {deictic[1]!r}"
        return "requirement", f"requirement: {strong!r}"
    if prohibition in ("不能", "不用") and (failure or not (standing or weak)):
        prohibition = None  # "不能用" (broken) or "不用了" (no need): not a rule by themselves
    if prohibition:
        if deictic and not standing:
            return None, f"one-off instruction: {prohibition!r} refers to {deictic[1]!r}"
        return "requirement", f"prohibition: {prohibition!r}"
    if standing:
        if failure and not weak:
            return None, f"failure complaint: {failure!r} (with {standing!r})"
        past = _past_verb(core)
        if past and not weak:
            return None, f"narration: past event ({past!r})"
        one_off = any_of(core, _ONE_OFF)
        if one_off and not weak and standing in _STANDING_EACH:
            return None, f"one-off task: {one_off!r}"
        return "requirement", f"standing rule: {standing!r}"
    return None
