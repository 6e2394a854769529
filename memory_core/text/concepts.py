"""A small Chinese/English concept map: synonyms and translations become one feature.

A concept is written ``~name``. Every surface form below, English or Chinese, is indexed
and queried as that one feature, so "database", "db" and "数据库" are a single vote, not
three. The map is deliberately small and general; it is not a translation dictionary.

Two flags shape the recall gates:

* ``attribute``: a property one asks *about* (port, timeout, location, ...). A query made
  only of attributes is a follow-up that needs a subject from the conversation, and a
  short "subject + attribute" query must find both.
* ``generic``: a word so general (config, status, project, ...) that matching it alone
  never qualifies a record. Generic concepts are attributes too.

Changing this map changes what the index holds: bump ``INDEX_VERSION`` in
:mod:`memory_core.recall.index` and rebuild.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import NamedTuple


# The fields with defaults: a typed ``NamedTuple`` for the type checker, ``namedtuple`` (the
# same class) at run time, whose fields ``typing`` need not compile one annotation string at
# a time on every start of the per-turn hook (docs/hooks.md, "Cost"; a test compares the two).
if TYPE_CHECKING:

    class _ConceptFields(NamedTuple):
        name: str
        english: tuple[str, ...]
        chinese: tuple[str, ...] = ()
        attribute: bool = False
        generic: bool = False

else:
    _ConceptFields = namedtuple(
        "Concept", ("name", "english", "chinese", "attribute", "generic"), defaults=((), False, False)
    )


class Concept(_ConceptFields):
    """One concept: its feature name, flags and surface forms."""

    __slots__ = ()

    @property
    def feature(self) -> str:
        return "~" + self.name


def _c(name: str, english: str, chinese: str = "", *, attribute: bool = False, generic: bool = False) -> Concept:
    return Concept(name, tuple(english.split()), tuple(chinese.split()), attribute or generic, generic)


CONCEPTS: tuple[Concept, ...] = (
    # Technical subjects.
    _c("database", "database databases db dbs", "数据库"),
    _c("test", "test tests testing tested unittest unittests", "测试"),
    _c("deploy", "deploy deploys deployed deploying deployment deployments", "部署"),
    _c("build", "build builds building compile compiles compiling compilation", "构建 编译"),
    _c("error", "error errors exception exceptions", "错误 报错 异常"),
    _c("log", "log logs logging logger", "日志"),
    _c("cache", "cache caches caching cached", "缓存"),
    _c("server", "server servers", "服务器"),
    _c("memory", "memory memories", "记忆"),
    _c("ram", "ram", "内存"),
    _c("dependency", "dependency dependencies deps", "依赖"),
    _c("library", "library libraries lib libs", "库文件 类库"),
    _c("commit", "commit commits", "提交"),
    _c("script", "script scripts", "脚本"),
    _c("function", "function functions func", "函数"),
    _c("api", "api apis interface interfaces", "接口"),
    _c("code", "code", "代码 源码 源代码"),
    _c("variable", "variable variables", "变量"),
    _c("performance", "performance perf", "性能"),
    _c("backup", "backup backups", "备份"),
    _c("migration", "migration migrations migrate", "迁移"),
    _c(
        "preference",
        "prefer prefers preferred preference preferences favorite favourite favorites favourites hobby hobbies",
        "偏好 喜好 喜欢 喜爱 最爱 爱好 兴趣爱好 兴趣",
    ),
    _c("happy", "happy glad joyful", "开心 高兴 快乐 愉快"),
    _c("sad", "sad unhappy upset", "难过 伤心 悲伤"),
    _c("friend", "friend friends", "朋友 好友"),
    _c("family", "family", "家人 家庭 一家人"),
    # 妈 and 爸 alone too ("我妈用的…"); 姑妈, 姨妈 and 舅妈 are aunts (kept whole:
    # memory_core.text.vocabulary.CHINESE_KEEP_WORDS).
    _c("father", "father dad daddy", "父亲 爸爸 老爸 爸"),
    _c("mother", "mother mom mum mommy", "母亲 妈妈 老妈 妈"),
    _c("wife", "wife wives", "妻子 老婆 媳妇 太太"),
    _c("husband", "husband husbands", "丈夫 老公"),
    _c("job", "job jobs career careers occupation occupations profession", "工作 职业 职位 职务 岗位 上班"),
    _c("travel", "travel travels traveled travelled traveling travelling trip trips", "旅行 旅游"),
    _c("birthday", "birthday birthdays", "生日 出生日期"),
    _c("wedding", "wedding weddings wedded married marry marries marrying marriage marriages", "婚礼 结婚 婚姻"),
    _c("school", "school schools", "学校"),
    # Everyday things English names two ways.
    _c("movie", "movie movies film films"),
    _c("meeting", "meeting meetings", "会议"),
    # Attributes: what one asks about a subject.
    _c(
        "auth",
        "auth authentication authenticate authenticated authorization login logins signin credential credentials",
        "认证 鉴权 身份验证 登录 登陆 授权",
        attribute=True,
    ),
    _c("password", "password passwords passwd passphrase", "密码 口令", attribute=True),
    _c("port", "port ports", "端口", attribute=True),
    _c("host", "host hosts hostname hostnames", "主机", attribute=True),
    _c("address", "address addresses", "地址", attribute=True),
    _c("url", "url urls link links endpoint endpoints", "链接 网址", attribute=True),
    _c("path", "path paths filepath", "路径", attribute=True),
    _c("directory", "directory directories dir dirs folder folders", "目录 文件夹", attribute=True),
    _c("file", "file files", "文件", attribute=True),
    _c("version", "version versions", "版本", attribute=True),
    _c("timeout", "timeout timeouts", "超时", attribute=True),
    _c("token", "token tokens", "令牌", attribute=True),
    _c("key", "key keys apikey", "密钥", attribute=True),
    _c("username", "username usernames", "用户名", attribute=True),
    _c("user", "user users", "用户", attribute=True),
    _c("name", "name names named", "名字 名称 姓名 名叫", attribute=True),
    # Personal details one asks about people and things.
    _c("age", "age ages aged", "年龄 年纪 岁数 周岁 岁", attribute=True),
    _c("height", "height heights", "身高 个子 多高", attribute=True),
    _c("weight", "weight weights", "体重 重量 多重", attribute=True),
    _c("gender", "gender", "性别", attribute=True),
    _c("education", "education degree degrees diploma", "学历 学位 教育背景 学历背景 文凭 毕业", attribute=True),
    _c("hometown", "hometown hometowns birthplace", "家乡 老家 故乡 籍贯 出生地", attribute=True),
    _c("employer", "employer employers", "单位 工作单位 公司", attribute=True),
    _c("brand", "brand brands", "品牌 牌子", attribute=True),
    _c("distance", "distance distances", "距离 路程", attribute=True),
    # A product's model: Chinese 型号 (English "model" is as often a data or a language model).
    _c("model_number", "", "型号", attribute=True),
    _c("material", "material materials", "材质 材料", attribute=True),
    _c("language", "language languages", "语言", attribute=True),
    _c("framework", "framework frameworks", "框架", attribute=True),
    _c("branch", "branch branches", "分支", attribute=True),
    _c("command", "command commands cmd", "命令 指令", attribute=True),
    _c("format", "format formats", "格式", attribute=True),
    _c("limit", "limit limits maximum max", "限制 上限", attribute=True),
    _c("size", "size sizes scale", "大小 规模 尺寸", attribute=True),
    _c("count", "count", "数量 人数", attribute=True),
    _c(
        "cost",
        "cost costs price prices fee fees pay pays paid paying expensive cheap cheaper cheapest pricey pricier",
        "费用 价格 成本 价钱 便宜 昂贵 更贵 最贵 很贵 太贵 较贵 挺贵 不贵 "
        "更便宜 最便宜 很便宜 太便宜 较便宜 挺便宜 不便宜",
        attribute=True,
    ),
    _c("time", "time times", "时间 更早 更晚 最早 最晚 较早 较晚", attribute=True),
    _c("date", "date dates", "日期", attribute=True),
    _c("duration", "duration", "持续时间 时长", attribute=True),
    _c("deadline", "deadline deadlines", "截止日期 截止时间 期限", attribute=True),
    _c("location", "location locations place places venue", "地点 位置 地方 场所", attribute=True),
    _c("color", "color colors colour colours", "颜色", attribute=True),
    _c("email", "email emails e-mail", "邮箱 邮件", attribute=True),
    _c("phone", "phone phones telephone", "电话 手机 电话号码 手机号码 手机号 联系电话 联系方式", attribute=True),
    _c("content", "content contents", "内容", attribute=True),
    _c("environment", "environment environments env", "环境", attribute=True),
    # Generic words: they may score but can never qualify a record on their own.
    _c(
        "config",
        "config configs configuration configurations configure configured setting settings setup",
        "配置 设置",
        generic=True,
    ),
    _c("option", "option options parameter parameters param params flag flags", "选项 参数", generic=True),
    _c("default", "default defaults", "默认", generic=True),
    _c("status", "status progress state states", "状态 进度 进展 情况", generic=True),
    _c("project", "project projects repo repos repository repositories codebase", "项目 仓库", generic=True),
    _c("value", "value values", "数值", generic=True),
    _c("info", "info information detail details", "信息 详情 细节", generic=True),
)

BY_FEATURE: dict[str, Concept] = {c.feature: c for c in CONCEPTS}


def _english_forms() -> dict[str, str]:
    forms: dict[str, str] = {}
    for concept in CONCEPTS:
        feature = "~" + concept.name
        for form in concept.english:
            if form not in forms:
                forms[form] = feature
    return forms


def _chinese_forms() -> dict[str, str]:
    forms: dict[str, str] = {}
    for concept in CONCEPTS:
        feature = "~" + concept.name
        for form in concept.chinese:
            if form not in forms:
                forms[form] = feature
    return forms


ENGLISH: dict[str, str] = _english_forms()
CHINESE: dict[str, str] = _chinese_forms()
# Chinese questions that ask for a detail without naming it: "表弟多大了" (how old is the
# cousin), "表妹是哪里人" (where is she from), "多少钱" (how much money). Query side only: in stored text these
# words are filler, so what the index holds does not change.
CHINESE_ASKING: dict[str, str] = {
    "多大了": "~age",
    "多大年纪": "~age",
    "哪里人": "~hometown",
    "哪里的人": "~hometown",
    "哪儿人": "~hometown",
    "哪儿的人": "~hometown",
    "什么地方的人": "~hometown",
    "哪个地方的人": "~hometown",
    "多少钱": "~cost",
    "多少块钱": "~cost",
    # A name asked without the word 名字: "我舅舅叫什么来着？"
    "叫什么": "~name",
    "叫啥": "~name",
    # An occupation asked without the word 工作/职业: "我叔叔是干啥的？"
    "做什么的": "~job",
    "干什么的": "~job",
    "做啥的": "~job",
    "干啥的": "~job",
    "干嘛的": "~job",
    # A distance asked without the word 距离: "离我家多远？", "远不远", and a cost: "贵不贵"
    "多远": "~distance",
    "有多远": "~distance",
    "远不远": "~distance",
    "多少公里": "~distance",
    "贵不贵": "~cost",
    # A clock time or a date asked without the word 时间/日期: "几点关门", "哪年买的"
    "几点": "~time",
    "几点钟": "~time",
    "哪年": "~date",
    "哪一年": "~date",
    "哪天": "~date",
    "哪一天": "~date",
    "几月几号": "~date",
    "几月几日": "~date",
    "什么时候": "~date",
    "啥时候": "~date",
    "何时": "~date",
}
