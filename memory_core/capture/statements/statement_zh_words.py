"""Marker words for :mod:`memory_core.capture.statements.statement_zh`.

The marker tuples and word sets (and the few structural regular expressions) that the
Chinese rules search for: fillers and chatter, recall, cues, questions, reported speech,
deferrals, preferences, decisions, standing markers, modals and prohibitions, deictics,
narration, failures, subjects, conventions, scopes, task starts and list labels. Tables
only; the rules that use them live in ``statement_zh``.
"""

from __future__ import annotations

import re

from memory_core.capture.statements.statement_text import words

# A leading (?!\0) keeps re from building a 64K-entry charset of the CJK first characters.
QUOTED = re.compile(r'"[^"\n]{0,300}"')
SPACE = re.compile(r"\s+")
RECALL_SAID = re.compile(r"(?!\0)(?:说|讲|提|定|约定|决定)过?的?(?:什么|啥|哪些)")
FIXING = re.compile(
    r"(?!\0)(?:修复?|解决|处理|排查|定位)(?:一个|这个|那个|个)?"
    r"(?:bug|Bug|BUG|问题|错误|报错|异常|崩溃)"
)
PICK = re.compile(r"(?!\0)(?:就用|就选|就定|改用|换成|切到|迁移到).{1,30}吧")
ONLY = re.compile(r"只有[^,.]{1,12}?(?:能|可以|才)")
EDIT_BEFORE = re.compile(r"(?!\0)(?:删除|删|改)[^,.]{0,6}?之?前")

QUOTE_MARK = "〔引文〕"
TRAILING = ".!~,;…"
FILLERS = words(
    "好的 好吧 嗯嗯 嗯 哦 噢 啊 ok OK Ok 对了 另外就是 另外 还有就是 还有 顺便说一下 顺便提一句 顺便 "
    "补充一下 补充 然后 那个 其实 总之 谢谢 多谢 不错 好 行 对 可以 哈哈哈 哈哈 所以 但是 不过"
)
FREE_FILLERS = frozenset(
    words("对了 另外 还有就是 顺便说一下 顺便提一句 顺便 补充一下 然后 其实 所以 但是 不过 另外就是 嗯 哦")
)
FILLER_PUNCT = ",.!:~ "
CHATTER = tuple(
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

RECALL = ("还记得", "记不记得", "来着", "提醒我", "你记得", "回忆一下")
CUES = (
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
COLON_CUES = ("注意", "提醒一下", "提醒", "友情提示", "备忘")
LIST_LEADS = ("这些", "这几点", "以下", "下面")
QUESTION_ENDS = ("?", "吗", "么", "呢", "没有", "好不好", "对不对", "行不行", "是不是")
QUESTION_STARTS = words(
    "为什么 为啥 怎么 怎样 如何 哪 什么 谁 多少 是否 能否 可否 有没有 是不是 要不要 能不能 "
    "会不会 可不可以 用不用 该不该 咋"
)
A_NOT_A = words("是不是 要不要 能不能 会不会 可不可以 有没有 用不用 该不该 对不对 好不好 行不行")
CONCESSIVES = ("不管", "无论", "不论")
INTERROGATIVES = ("哪个", "哪些", "哪里", "哪儿", "哪一", "什么", "怎么", "怎样", "多少", "为什么", "为啥", "谁")
POLITE_TAGS = ("好吗", "行吗", "可以吗", "好不好", "行不行", "OK吗", "ok吗")
HEDGES = ("也许", "或许", "可能可以", "不确定", "我觉得", "感觉", "好像", "似乎", "不知道")
REPORTERS = words(
    "文档 README readme 注释 报错 错误提示 提示 日志 输出 工单 说明 手册 教程 博客 他 她 他们 同事 "
    "老板 领导 有人 别人 你 官方 网上"
)
REPORT_PLACES = ("之前", "刚才", "以前", "里", "上", "中")
REPORT_VERBS = ("写的是", "写着", "写道", "说", "提示", "显示", "提到", "建议")

DEFERRAL = (
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
NEG_CHATTER = words("别担心 不要紧 别管 不用了 不要了 别急 别着急 不客气 没关系 别客气 不用谢")

PREF_ADVERBS = ("个人", "比较", "还是", "更", "一般", "通常", "一直", "向来", "真的", "其实", "都", "也", "挺", "最")
PREF_VERBS = ("喜欢", "偏好", "偏爱", "倾向于", "倾向", "习惯", "希望", "讨厌", "受不了", "愿意")
PREF_MORE = ("喜欢", "倾向", "愿意", "想", "偏向")
PREF_WORDS = ("宁可", "宁愿", "我的偏好")
DECISIONS = (
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
PLANS = tuple(
    f"{a}{b}{c}"
    for a in ("准备", "打算", "计划")
    for b in ("", "全部", "都")
    for c in ("迁到", "迁移到", "换成", "改用", "切到")
)

STANDING = (
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
BEFORE_FIRST = tuple(f"前{b}{c}" for b in ("", "都") for c in ("先", "要", "得", "必须"))
EVENTS_BEFORE = tuple(
    f"{event}{before}"
    for event in words("提交 合并 发版 发布 推送 push commit 上线 部署 提PR 开PR 改代码 写代码 动手")
    for before in ("前", "之前")
)
NOT_BEFORE_LATER = frozenset("0123456789一二三四五六七八九十几天点钟周月年个")  # "三天以后" is a date, not a rule
STRONG = words(
    "必须 务必 一定要 一定得 千万要 严禁 禁止 不允许 不许 不准 一律 只允许 仅允许 不得 统一用 "
    "统一使用 统一放 统一写 统一加"
)
PROHIBITIONS = ("千万别", "永远不要", "绝对不要", "尽量不要", "尽量别", "不要", "避免", "不可以", "不能", "不用")
NOT_BIE_BEFORE = frozenset("特区分类级识告派性鉴辨差")  # 特别, 区别 … are not "don't"
NOT_BIE_AFTER = frozenset("人的处家")  # 别人, 别的 …
WEAK = ("应该", "应当", "需要", "最好", "尽量", "只能", "只用")
DEI_AFTER = frozenset("先用跑写加有带改放")  # 得 as "must": 得先, 得用 …
DEICTICS = (
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
SCOPE_NOUNS = ("项目", "仓库", "库", "团队", "组", "服务", "工程", "repo", "代码库")
ONE_OFF = ("一下", "一遍", "这次", "这回", "顺便", "再试", "再跑", "帮我", "帮忙", "麻烦")
PAST_TIMES = words(
    "昨天 前天 刚才 刚刚 上次 上周 上个月 上午 早上 今早 今天早上 那天 当时 那时 后来 一开始 我们以前 我以前 已经"
)
PAST_LE = frozenset("试跑看改装查换推删加写点遇碰发现花用做弄修提开关出")  # V了
PAST_GUO = frozenset("试跑看改装查换推删加写做弄修用")  # V过
FAILURES = words(
    "报错 崩溃 崩了 失败 挂了 挂掉 出错 错误 卡住 卡死 卡在 超时 闪退 跑不通 跑不起来 起不来 跑不完 "
    "不工作 不能用 用不了 不行 有问题 出问题 问题 bug Bug BUG 异常 红了 炸了 太慢 很慢 变慢 太旧 烦 "
    "坏了 段错误 死循环 内存溢出 OOM 不稳定 抽风 不对 奇怪"
)
FAILURE_COMPOUNDS = ("信息", "提示", "处理", "码", "日志", "消息", "页面", "类型", "用例")  # 报错信息 is a noun
SUBJECTS = words(
    "我们公司的服务 咱们这个项目 我们的服务 我们这边 我们这里 我们组 我们团队 我们公司 我们项目 "
    "我们仓库 我们 咱们 团队 公司 这个项目 本项目 该项目 项目里 项目中 这个仓库 本仓库 仓库里 "
    "这个库 这个服务 这边"
)
PRACTICES = words(
    "一直是 都是 向来是 一般是 通常是 使用 采用 基于 跑在 部署 发布 发版 遵循 按照 支持 命名 放在 "
    "上线 打包 习惯 遵守 维护 用 写 走"
)
CONVENTION_NOUNS = ("命名", "规范", "约定", "惯例", "风格", "格式", "规矩", "规则", "原则", "标准", "流程")
CONVENTION_LINKS = ("是", "为", "用", "都", "遵循", ":")
TOPIC_VERBS = ("使用", "写成", "放在", "放到", "采用", "部署在", "遵循", "用", "写")
TOPIC_STOP = frozenset(",.我你他它这那")
TOPIC_BAD_START = frozenset("给把将帮让去跑先再请")
TOPIC_BAD_NEXT = ("的", "了", "过", "一下")
SCOPES = tuple(
    f"{owner}{thing}{place}"
    for owner in words("这个 本 我们的 我们 咱们")
    for thing in words("项目 仓库 代码库 库 团队 组 服务 repo")
    for place in words("里 中 内 下 上")
)
POLICY_STARTS = words("统一用 优先使用 优先用 尽量用 默认用 使用 改用 都用 只用 采用 用")  # longest first
TASK_STARTS = words(
    "帮 麻烦 把 将 给我 你去 你来 你先 去 跑 运行 看 查 检查 修 改 加 删 写 提交 推 合并 部署 重构 "
    "试 打开 继续 实现 更新 安装 装 先 再 重新"
)
HEADER_NOUNS = ("规矩", "规范", "约定", "规则", "要求", "偏好", "注意事项", "原则", "习惯")
LABEL_KINDS = {
    "决定": "decision",
    "决策": "decision",
    "规则": "requirement",
    "约定": "convention",
    "规范": "convention",
    "偏好": "preference",
    "要求": "requirement",
}
STANDING_EACH = frozenset(("每个", "每一个", "所有"))
