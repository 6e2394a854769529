"""Values a claim states by a name from a general lexicon, without the attribute's word: a
maker (a brand), a language, the place a person comes from; and the questions that ask
for each (:data:`memory_core.text.value_classes.VALUE_CLASSES` holds them as classes).
Changing them changes what the index holds: bump ``INDEX_VERSION``.
"""

from __future__ import annotations

from memory_core.lazy_pattern import lazy
from memory_core.text.value_asking import what_is

# The classes whose values are names of a lexicon: such a value is of its attribute, whatever
# else the claim says (memory_core.recall.rank, facet redundancy).
NAMED_VALUES = frozenset({"=brand", "=car", "=language", "=database", "=hometown"})

# A brand stated without the word: one of the widely known makers of what people buy and
# own (phones, computers, cars, shoes, clothes, watches, appliances, cameras), as the
# languages write them, or a name with 牌 ("象印牌的"). Words that are also everyday words
# are left out (美的, 理想, 长城, 现代, 大众, 红旗, 石头; "apple" only as a product) and so
# are names of software a coding session speaks of.
_MAKERS_ZH = (
    "华为|小米|荣耀|联想|一加|魅族|三星|索尼|松下|飞利浦|戴森|格力|海尔|海信|格兰仕|九阳|苏泊尔|象印|膳魔师|"
    "耐克|阿迪达斯|阿迪|安踏|李宁|特步|匹克|鸿星尔克|新百伦|彪马|亚瑟士|斯凯奇|优衣库|迪卡侬|无印良品|宜家|"
    "佳能|尼康|大疆|戴尔|惠普|华硕|宏碁|微软|丰田|本田|日产|奔驰|宝马|奥迪|特斯拉|比亚迪|吉利|蔚来|小鹏|福特|"
    "别克|雪佛兰|起亚|马自达|斯巴鲁|保时捷|沃尔沃|路虎|雷克萨斯|凯迪拉克|五菱|新秀丽|路易威登|古驰|香奈儿|爱马仕|"
    "普拉达|蔻驰|卡西欧|浪琴|欧米茄|劳力士|天梭|斯沃琪|西铁城|佳明|罗技|雷蛇|漫步者|森海塞尔|铁三角|任天堂|"
    "乐高|科沃斯|追觅|德龙|步步高|中兴|努比亚|捷安特|美利达|雅迪|爱玛|小天鹅|百诺|"
    "微星|技嘉|哈弗|领克|极氪|问界|零跑|奇瑞|传祺|荣威|名爵|宝骏|法拉利|兰博基尼|玛莎拉蒂|宾利|"
    "兰蔻|雅诗兰黛|欧莱雅|资生堂|迪奥|完美日记|花西子|斐乐|海澜之家|森马|波司登|太平鸟|"
    "伊利|蒙牛|农夫山泉|可口可乐|百事|雀巢|瑞幸|喜茶|茅台|五粮液|青岛啤酒"
)
_BRANDS_ZH = f"{_MAKERS_ZH}|苹果(?=手机|电脑|笔记本|平板|耳机|手表|的)|富士(?!山)"
# The makers' Chinese names as plain words (苹果 only as a maker where a product follows it).
CHINESE_MAKERS = frozenset(_MAKERS_ZH.split("|")) | {"富士"}
_BRANDS_EN = (
    "iphone|ipad|macbook|imac|airpods|apple\\s+(?:watch|tv)|samsung|huawei|xiaomi|lenovo|thinkpad|dell|asus|acer|"
    "sony|panasonic|philips|dyson|nike|adidas|puma|reebok|asics|new\\s+balance|under\\s+armou?r|uniqlo|decathlon|"
    "ikea|canon|nikon|fujifilm|toyota|honda|nissan|volkswagen|mercedes(?:-benz)?|bmw|audi|tesla|byd|chevrolet|"
    "chevy|hyundai|kia|mazda|subaru|porsche|volvo|lexus|samsonite|gucci|prada|chanel|herm[eè]s|louis\\s+vuitton|"
    "rolex|casio|seiko|garmin|fitbit|logitech|razer|bose|sennheiser|nintendo|playstation|xbox|patagonia|"
    "north\\s+face|lego|oppo|vivo|oneplus|motorola|nokia|kindle|gopro|peloton|lululemon|"
    "ray-ban|oakley|yeti|hydro\\s+flask|kitchenaid|vitamix|instant\\s+pot|roomba|irobot|keurig|nespresso|"
    "breville|sonos|jbl|bang\\s+&\\s+olufsen|harman\\s+kardon|fender|gibson|yamaha|ford|jeep|chrysler|"
    "cadillac|buick|acura|infiniti|rivian|polestar|ferrari|lamborghini|maserati|bentley|land\\s+rover|"
    "range\\s+rover|cannondale|schwinn|brompton|giant\\s+bikes?"
)
BRAND_HELD = lazy(
    f"(?:{_BRANDS_ZH})|[\u4e00-\u9fff]{{2,4}}(?<![打车门招金银铜王纸克底路码老胸工奖])牌(?=的|[,.!?;，。！？；]|$)"
    rf"|\b(?:{_BRANDS_EN})\b"
)
MODEL_ASKED = lazy(r"(?:什么|啥|哪个|哪一个|哪款|哪种)型号|型号(?:是|为)?(?:什么|啥|多少|哪)|\bwhat\s+model\b")
BRAND_ASKED = lazy(
    "(?:什么|啥|哪个|哪一个|哪种|哪家)(?:的)?(?:牌子|品牌|牌)|(?:牌子|品牌)(?:是|为)?(?:什么|啥|哪)"
    rf"|\b(?:what|which)\s+(?:brand|make)\b|{what_is('brands?')}"
)

# A car told by its maker ("a used Subaru Outback", "斯巴鲁森林人", "一辆比亚迪"), asked by "what car
# do I drive?", "我开的什么车？" (not 车次, 车位, 车票 …).
_CAR_MAKERS_ZH = (
    "丰田|本田|日产|奔驰|宝马|奥迪|特斯拉|比亚迪|蔚来|小鹏|福特|别克|雪佛兰|起亚|马自达|斯巴鲁|保时捷|沃尔沃|"
    "路虎|雷克萨斯|凯迪拉克|五菱|哈弗|领克|极氪|问界|零跑|奇瑞|传祺|荣威|名爵|宝骏|法拉利|兰博基尼|玛莎拉蒂|宾利|"
    "理想(?=[Ll0-9]|汽车|one)|大众(?=汽车|的车|[a-z]|帕萨特|迈腾|朗逸|速腾|途观|宝来)|现代(?=汽车|伊兰特|索纳塔|途胜)|"
    "雪铁龙|斯柯达|三菱|捷豹|凯美瑞|卡罗拉|雅阁|思域|轩逸|朗逸|帕萨特|迈腾"
)
# (not the makers' names that are everyday words too: seat, accord, civic, dodge, genesis,
# mustang, jaguar, fiat, lincoln; 吉利, 标致, 高尔夫)
_CAR_MAKERS_EN = (
    r"toyota|honda|nissan|volkswagen|vw|mercedes(?:-benz)?|bmw|audi|tesla|byd|chevrolet|chevy|hyundai|kia|mazda|"
    r"subaru|porsche|volvo|lexus|ford|jeep|chrysler|cadillac|buick|acura|infiniti|rivian|polestar|ferrari|"
    r"lamborghini|maserati|bentley|land\s+rover|range\s+rover|mini\s+cooper|peugeot|renault|citro[eë]n|skoda|"
    r"mitsubishi|suzuki|alfa\s+romeo|corolla|camry|prius|rav4|wrangler"
)
CAR_HELD = lazy(f"(?:{_CAR_MAKERS_ZH})|(?<![a-z0-9])(?:{_CAR_MAKERS_EN})(?![a-z0-9])")
CAR_ASKED = lazy(
    r"\b(?:what|which)\s+(?:kind\s+of\s+|make\s+of\s+|model\s+of\s+|type\s+of\s+)?cars?\b(?!\s+(?:park|wash|seat|insurance|loan|rental))"
    "|(?:什么|啥|哪款|哪种|哪个牌子的?|哪辆)(?:的)?(?:车|汽车|轿车)(?![次厢票位道库型])"
)

# A language stated by its name: the widely used programming languages (a name that is also
# an everyday word only where a program is written in it: "written in Go", "a Rust crate"),
# and the major human languages as English and Chinese write them. A nationality before a
# noun it qualifies is no language ("Chinese food", "French fries", "German shepherd").
_PROGRAMMING_LANGUAGES = (
    r"python|javascript|typescript|java(?!\s*script)|kotlin|scala|haskell|elixir|erlang|clojure|ocaml|f#|"
    r"fortran|cobol|golang|c\+\+|c#|objective-c|php|perl|lua|matlab|groovy|powershell|solidity|webassembly"
)
_WORDLIKE_LANGUAGES = "go|rust|swift|ruby|dart|zig|julia|c|r|elm|nim|crystal|bash"
_HUMAN_LANGUAGES = (
    "english|spanish|french|german|italian|portuguese|russian|japanese|korean|chinese|mandarin|cantonese|arabic|"
    "hindi|dutch|swedish|norwegian|danish|finnish|polish|greek|turkish|hebrew|thai|vietnamese|indonesian|"
    "ukrainian|czech|hungarian|romanian|persian|farsi|urdu|bengali|tagalog|swahili|latin|esperanto"
)
_NATIONALITY_NOUNS = (
    r"food|fries|toast|restaurant|cuisine|dish|shepherd|press|horn|people|government|man|woman|guy|girl|friend|"
    r"family|company|car|wine|beer|kiss|new\s+year|quarter|drama|movie|film|culture|history|border|market"
)
LANGUAGE_HELD = lazy(
    "中文|汉语|普通话|粤语|英语|英文|日语|日文|法语|德语|韩语|俄语|西班牙语|意大利语|葡萄牙语|阿拉伯语|泰语|越南语"
    "|(?:python|java|go|c|js|rust|php|ruby)语言"
    rf"|(?<![a-z0-9_#+/-])(?:{_PROGRAMMING_LANGUAGES})(?![a-z0-9_#+/-])"
    r"|\b(?:written|coded|implemented|rewritten|rewrote|ported|programm?ing|code|coding|built)\s+in\s+"
    rf"(?:{_WORDLIKE_LANGUAGES})(?![a-z0-9_#+-])"
    rf"|用(?:{_WORDLIKE_LANGUAGES})(?:语言)?(?:写|开发|实现|重写)"
    rf"|\b(?:{_WORDLIKE_LANGUAGES})\s+(?:code|codebase|crate|module|binary|service|program|compiler|toolchain)s?\b"
    rf"|\b(?:{_HUMAN_LANGUAGES})\b(?!\s+(?:{_NATIONALITY_NOUNS})s?\b)"
)
LANGUAGE_ASKED = lazy(
    "(?:什么|啥|哪种|哪门|哪个|哪一种)(?:编程)?语言|语言(?:是|用的是)?(?:什么|啥|哪)"
    + "|"
    + what_is(r"(?:programming\s+)?languages?")
    + r"|\bwhat\s+(?:[a-z'-]+\s+){0,2}?(?:is|was|are|were)\s+[^?]{0,40}\bwritten\s+in\b"
)
# A database stated by its product's name ("PostgreSQL 16", "SQLite", "MongoDB Atlas"), asked by
# "what database …?", 什么数据库. Not the stores more often said to be a cache, a broker or a
# search index (Redis, Memcached, Elasticsearch), nor a name that is an everyday word (Oracle
# alone, "Snowflake").
DATABASE_HELD = lazy(
    r"(?<![a-z0-9])(?:postgres(?:ql)?|mysql|mariadb|sqlite3?|mongodb|mongo|dynamodb|cassandra|cockroachdb|couchdb|"
    r"neo4j|firestore|clickhouse|timescaledb|duckdb|redshift|bigquery|sql\s+server|mssql|oracle\s+database|"
    r"aurora|supabase|planetscale|cosmos\s?db|influxdb|scylladb|tidb|oceanbase)(?![a-z0-9]|[-_.][a-z])"
)
# (the word heads its phrase: "what database indexes were added?" asks no database)
DATABASE_ASKED = lazy(
    "(?:什么|啥|哪种|哪个|哪一个|哪款)数据库|数据库(?:是|用的是|用的)?(?:什么|啥|哪)"
    r"|\b(?:what|which)\s+(?:[a-z-]+\s+)?(?:databases?|dbs?)\s+(?:do|does|did|is|are|was|were|will|should|can|has|have)\b"
    r"|\b(?:what|which)(?:'s|\s+is|\s+was|\s+are|\s+were)\s+(?:the|our|my|its|their|your)\s+(?:[a-z-]+\s+){0,2}?"
    r"(?:databases?|db)\s*(?:[?,.]|$|\b(?:for|of|in|behind|used|that|we|they)\b)"
)
# Where a person comes from, stated without the word: 来自 a place ("来自黑龙江哈尔滨"; not
# 来自于, "comes from" a source), 老家在/是 a place, born or raised in one, or a province's or a
# great city's people ("我表姐是山东人", "是北京人"); English "is (originally) from …", "grew up
# in …", "was born in …" (not "from the …", "from work").
_PROVINCES = (
    "北京|天津|上海|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|贵州|云南|"
    "陕西|甘肃|青海|台湾|内蒙古|广西|西藏|宁夏|新疆|香港|澳门|东北"
)
HOMETOWN_HELD = lazy(
    "(?:来自(?!于)|(?:老家|家乡|故乡|籍贯)(?:是|在)|出生在|出生于|生长在|长大在)(?!什么|哪|啥)[\u4e00-\u9fff]{2}"
    rf"|是(?:{_PROVINCES})(?:[\u4e00-\u9fff]{{0,4}})人(?=[,.!?;，。！？；]|$|呢|啊|呀|吧)"
    r"|\b(?:i'm|i\s+am|he's|she's|they're|we're|is|am|are|was|were)\s+(?:originally\s+)?from\s+"
    r"(?!(?:the|a|an|my|his|her|our|their|your|work|home|school|here|there|now|then)\b)[a-z]"
    r"|\b(?:grew\s+up|was\s+born|were\s+born|born\s+and\s+raised|raised)\s+in\s+(?!the\b|a\b)[a-z]"
)
HOMETOWN_ASKED = lazy(
    "哪里的?人|哪儿的?人|哪的人|什么地方的人|哪个地方的人|来自哪|(?:家乡|老家|故乡|籍贯|出生地)(?:是|在)?(?:哪|什么)"
    r"|\bwhere\b[^?]{1,60}\b(?:from|grow\s+up|grew\s+up|born)\b|" + what_is("hometowns?")
)
