"""Values that state an attribute without naming it: "my bike is blue" answers "what colour
is my bike?", "花了2300元" answers "多少钱", and a question that only speaks of colours asks
for none (memory_core.text.value_classes)."""

from __future__ import annotations

import pytest

from memory_core.recall.query_plan import build_plan
from memory_core.recall.service import explain_claim, recall
from memory_core.text.query_features import query_terms
from memory_core.text.tokenize import features, index_fields, normalize
from memory_core.text.value_classes import asked_value, held_values, is_value_class
from tests.support.recalled import ids
from tests.support.times import DAY, NOW


@pytest.mark.parametrize(
    ("text", "classes"),
    [
        ("我的自行车是蓝色的。", ["=color"]),
        ("My bike is blue.", ["=color"]),
        ("我的自行车花了2300元。", ["=cost"]),
        ("价格三千元", ["=cost"]),
        ("It was $40 at the market.", ["=cost"]),
        ("the plan costs 12 euros a month", ["=cost"]),
        ("a grey 40 dollar jacket", ["=color", "=cost"]),
        ("The deploy runs on port 8080.", []),  # the word port: the concept itself
        ("The billing API runs on localhost:8080.", ["=port"]),
        ("db.internal:5432 and redis:6379", ["=port"]),
        ("serve it on :3000", ["=port"]),
        ("we meet at 10:30, see version 1.2:30", ["=when"]),  # a clock time; 1.2:30 no time
        ("营业时间是早上八点到晚上十点", ["=when"]),
        ("时间是2024-04-17 14:00", ["=when"]),
        ("活动在下周三晚上七点", ["=when"]),
        ("她的生日是11月3日", ["=when"]),
        ("这台车是2022年5月买的", ["=when"]),
        ("the standup is at 9 am every Monday", ["=when"]),
        ("we shipped it on March 3rd", ["=when"]),
        ("快一点，第3点建议和两点意见", []),  # "a little", "point 3", "two points": no clock
        ("我舅舅叫张翰林。", ["=name"]),
        ("I adopted a puppy and named him Biscuit.", ["=name"]),
        ("a linter called `ruff`", ["=name"]),  # read on the text as written: quoted
        ("他叫我去开会，叫外卖，尖叫起来", []),  # asked, ordered, screamed: no name
        ("we called the API and called him back", []),
        ("CI 被叫停了，我的狗叫醒了我，部署脚本叫上小王，叫救护车，我叫的外卖", []),
        ("我们的支付服务叫 paygate。", ["=name"]),  # a name in Latin letters
        ("有3点需要注意，给了10点经验，得了九十点五分，1点赞", []),  # points, not o'clock
        ("每周一次，一周三次，提前天数，之后天天", []),  # counts and words, not days
        ("step 2 may fail and the job took 0:05:12", []),
        ("The v2 launch is on May 2nd.", ["=when"]),
        ("We called Alice about the outage, then called Stripe's API and Redis.set", []),
        ("Reach Bob at bob.smith@example.com.", ["=email"]),
        ("3块硬盘", []),  # 块 alone counts pieces, not money
        # … unless no noun it counts follows: the colloquial yuan
        ("每个月房租6500块，实在太贵了", ["=cost"]),
        ("一共花了三十多块的样子", ["=cost"]),
        ("这个500块左右", ["=cost"]),
        ("买了一块手表和两块蛋糕，我们一块去。切成两块，一块。", []),
        ("这台机器有8块 SSD，第3块，数组第2块", []),
        ("bluetooth and redis", []),  # whole words only
        # An occupation stated without the word for it
        ("我的上司是干建筑工人的。", ["=job"]),
        ("我叔叔是厨师长。", ["=job"]),
        ("我妈妈在医院当护士。", ["=job"]),
        ("我表姐她是快递员。", ["=job"]),
        ("我的上司是研发总监。", ["=job"]),  # a title with what it directs
        ("She is a registered nurse.", ["=job"]),
        ("My brother works as a firefighter in Boston.", ["=job"]),
        ("我是健身房的会员，他是我们队的队员", []),  # members, not trades
        ("这个菜是做了很久的，我是高手", []),
        ("I am a member of the gym and a fan of the team", []),
        # A level of schooling stated without the word for it
        ("我的表姐上的是专科。", ["=education"]),
        ("我的同事就念到高中。", ["=education"]),
        ("我同事学历挺高的，是个博士。", ["=education"]),
        ("我上司就专科毕业的。", ["=education"]),
        ("I have a master's in economics.", ["=education"]),
        ("我高中同学来了，初中的时候我们很熟", []),  # a level alone is no one's schooling
        # An age stated in English
        ("My cousin Mike is 34 years old.", ["=age", "=name"]),
        ("my 7-year-old son loves trains", ["=age"]),
        ("the build cache is 3 days old", ["=age"]),
        ("She turned 40 in May.", ["=age"]),
        ("I'm 29, and I live in Denver.", ["=age"]),
        ("turn 90 degrees; the timeout is 30; I'm 5 minutes late", []),
        ("he is 3.5 hours away", []),  # no age before a decimal point
        # A person's height stated without the word
        ("我表弟一米八。", ["=height"]),
        ("我上司身高164cm。", ["=height"]),
        ("He is 6 feet tall.", ["=height"]),
        ("she is 1.65m", ["=height"]),
        ("the table is 3 m long, the screen 15.6 inches, a pool of 150", []),
        # A brand stated by its maker's name, and a distance without the word
        ("这台笔记本电脑是联想的，型号是小新Pro16。", ["=brand"]),
        ("我的保温杯是象印牌的。", ["=brand"]),
        ("我妈妈用的是苹果手机。", ["=brand"]),
        ("my laptop is a ThinkPad X1 Carbon", ["=brand"]),
        ("I run in Nike Pegasus shoes", ["=brand"]),
        ("我喜欢吃苹果，他拿了金牌，我们打牌", []),  # a fruit, a medal, a card game
        ("火锅店离我家大概三公里。", ["=distance"]),
        ("we drove 400 miles to the lake", ["=distance"]),
        ("the room is 3 meters wide", []),  # metres alone: a length, not a distance travelled
        # A language named without the word: a human one, or a programming one as code names it
        ("I've been learning Portuguese since the spring.", ["=language"]),
        ("我最近在学西班牙语。", ["=language"]),
        ("The billing service is written in Go.", ["=language"]),
        ("后端服务是用Go写的。", ["=language"]),
        ("the data pipeline scripts are all Python 3.12", ["=language"]),
        ("a small Rust crate parses the logs", ["=language"]),
        ("We had Chinese food, and French fries with it.", []),  # a nationality before its noun
        ("let's go for a walk; the rust on my bike; swift work", []),  # everyday words
        ("the pythonic way; see node_modules/python/x", []),
        # Where a person comes from, stated without the word
        ("我的同事来自黑龙江哈尔滨。", ["=hometown"]),
        ("我表姐是山东济南人。", ["=hometown"]),
        ("我表哥的家乡在广州。", ["=hometown"]),
        ("My coworker Priya is originally from Pune.", ["=hometown", "=name"]),
        ("She grew up in Lisbon.", ["=hometown"]),
        ("这笔钱来自于投资，他老家在哪我不知道", []),  # a source; a place asked, not stated
        ("I came back from work; he is from the government; 我是个好人", []),
        # 万 after the word of a price: money
        ("这辆凯美瑞落地价二十二万。", ["=cost", "=car"]),
        ("装修花了3万。", ["=cost"]),
        # a bare amount after the word of a price, a rent or of spending
        ("最后买了一双跑鞋，花了四百多，穿着特别舒服。", ["=cost"]),
        ("房租涨到了每月四千五，想搬家。", ["=cost"]),
        ("学费一年三万八", ["=cost"]),
        ("房租是3500。", ["=cost"]),
        ("我花了一千二左右", ["=cost"]),
        ("路上花了三十分钟，卖了二十台，花了两个小时", []),  # a time or a count, no money
        ("价格是3个月前的，花了一个下午", []),
        # a car told by its maker or its model
        ("I traded in my old Corolla for a used Subaru Outback.", ["=brand", "=car"]),
        ("上周换了一辆二手的斯巴鲁森林人。", ["=brand", "=car"]),
        ("我的车是卡罗拉。", ["=car"]),
        ("of my own accord; a civic duty; dodge the question; 她长得很标致", []),
        # a database by its product's name (not a cache, a broker or a search index)
        ("I want FastAPI, PostgreSQL 16, and SQLAlchemy 2 with async sessions.", ["=database"]),
        ("后端的数据都存在MongoDB里。", ["=database"]),
        ("Stock levels are cached in Redis; logs go to Elasticsearch.", []),
        ("the postgres-exporter sidecar; mongo_uri", []),
        ("FROM node:18-alpine; we pin postgres:15", ["=database"]),  # the image's tag is no port
        # an occupation after three words qualifying it; a named person's relation, named
        ("Tom Becker is a high school chemistry teacher in Leeds.", ["=job"]),
        ("Tom's wife, Anna, works as a midwife at St James's Hospital.", ["=job", "=name"]),
        ("Tom's car is parked outside; Tom's wife is away.", []),
        ("我老婆在一家外企做财务，平时喜欢烘焙。", ["=job"]),  # an office's work by its function
        ("行政楼在东边", []),
    ],
)
def test_values_a_claim_holds(text: str, classes: list[str]) -> None:
    assert held_values(normalize(text), text) == classes


def test_the_index_keeps_the_value_beside_its_class_once() -> None:
    counts = index_fields("My bike is blue, blue as the sea.")["body"]
    assert counts["blue"] == 2 and counts["=color"] == 1
    counts = index_fields("我的自行车是蓝色的")["body"]
    assert counts["蓝色"] == 1 and counts["=color"] == 1 and "~color" not in counts
    assert all(not is_value_class(f) for f in index_fields("The colour of the bike")["body"])


@pytest.mark.parametrize(
    ("concept", "text", "value"),
    [
        ("~color", "我的自行车是什么颜色？", "=color"),
        ("~color", "what colour is my bike?", "=color"),
        ("~color", "which colors are the team's jerseys?", "=color"),
        ("~color", "why did she choose colors and patterns for the bowl?", None),
        ("~cost", "我的笔记本电脑多少钱买的？", "=cost"),
        ("~cost", "how much did my bike cost?", "=cost"),
        ("~cost", "我的自行车多少块钱买的？", "=cost"),
        ("~cost", "what was the price of the tickets?", "=cost"),
        ("~cost", "we should cut the cost of the build", None),
        ("~port", "what port does the billing API use?", "=port"),
        ("~port", "billing API port?", "=port"),
        ("~port", "订单服务的端口是多少？", "=port"),
        ("~port", "we moved the port scanner to CI", None),
        ("~email", "what is Bob's email address", "=email"),
        ("~email", "他的邮箱地址是什么？", "=email"),
        ("~timeout", "what timeout does it use?", None),
        ("~email", "did Bob reply to the email?", None),  # a bare "…email?" asks only standing alone
        ("~port", "can we close the billing API port?", None),
        ("~color", "why do phones come in so many colours?", None),
        ("~cost", "and the price?", "=cost"),
        ("~cost", "扫地机器人和空气净化器哪个更贵？", "=cost"),
        ("~cost", "which is cheaper, my bike or my laptop?", "=cost"),
        ("~cost", "这家店很便宜", None),
        ("~time", "乐刻健身几点关门？", "=when"),
        ("~time", "首席记者能力提升营的时间是什么？", "=when"),
        ("~date", "我的特斯拉是哪年买的？", "=when"),
        ("~time", "what time does the gym open?", "=when"),
        ("~date", "读书会是什么时候？", "=when"),
        ("~date", "我表姐的生日是啥时候来着？", "=when"),
        ("~time", "we spent a lot of time on the build", None),
        ("~date", "bump the date library", None),
        ("~name", "我舅舅叫什么来着？", "=name"),
        ("~name", "我同事叫什么名字？", "=name"),
        ("~name", "what's my sister's name?", "=name"),
        ("~name", "rename the function's name field", None),
        ("~name", "what is the name of the cleanup script?", "=name"),
        ("~time", "what time complexity does the merge sort have?", None),
        ("~time", "what time zone is the prod server in?", None),
        ("~job", "我上司是做什么工作的呢？", "=job"),
        ("~job", "我叔叔是干啥的呀？", "=job"),
        ("~job", "我的下属是什么职位？", "=job"),
        ("~job", "what is my brother's job?", "=job"),
        ("~job", "what's Caroline's occupation?", "=job"),
        ("~job", "what is the cleanup job?", None),  # a program's job, not a person's
        ("~job", "我上司上班的地方是哪里呢？", None),  # asks where, not what work
        ("~education", "我表姐是啥学历来着？", "=education"),
        ("~education", "同事是哪个学校毕业的啊？", "=education"),
        ("~education", "what degree does my sister have?", "=education"),
        ("~education", "我表姐什么时候毕业的？", None),
        ("~age", "how old is my cousin?", "=age"),
        ("~age", "what is my sister's age?", "=age"),
        ("~job", "what does my brother do for a living?", "=job"),
        ("~height", "我表弟多高？", "=height"),
        ("~height", "how tall is my brother?", "=height"),
        ("~brand", "我的笔记本电脑是什么牌子的？", "=brand"),
        ("~brand", "what brand is my laptop?", "=brand"),
        ("~brand", "我为什么喜欢这个品牌？", None),  # speaks of the brand, asks none
        ("~model_number", "我爸的手机是什么型号？", "=brand"),
        ("~distance", "火锅店离我家多远？", "=distance"),
        ("~distance", "how far is the cabin from the lake?", "=distance"),
        ("~hometown", "同事的家乡是哪里的呀？", "=hometown"),
        ("~hometown", "where did my wife grow up?", "=hometown"),
        ("~hometown", "why do I miss my hometown?", None),  # speaks of it, asks none
        ("~language", "what language is the billing service written in?", "=language"),
        ("~language", "which programming language do we use for the scripts?", "=language"),
        ("~language", "后端是用什么语言写的？", "=language"),
        ("~language", "why is the language setting wrong?", None),  # speaks of it, asks none
        ("car", "what car do I drive now?", "=car"),
        ("car", "which car did we take to the airport?", "=car"),
        ("车", "我现在开的什么车？", "=car"),
        ("car", "what color is my car?", None),  # its colour asked, not which car
        ("car", "where is the car park?", None),
        ("~job", "what do I do for work?", "=job"),
        ("~database", "What database does the inventory-service use?", "=database"),
        ("~database", "what's our database?", "=database"),
        ("~database", "后端用的什么数据库？", "=database"),
        ("~database", "what database indexes were added?", None),  # a modifier, not the thing asked
        ("~database", "What database backup strategy is used?", None),
    ],
)
def test_questions_that_ask_for_a_value(concept: str, text: str, value: str | None) -> None:
    assert asked_value(concept, normalize(text)) == value


def test_an_asked_value_is_an_alternative_to_the_attribute() -> None:
    terms = query_terms("what colour is my bike?")
    colour = next(t for t in terms if t.feature == "~color")
    value = next(t for t in terms if t.feature == "=color")
    assert colour.group and value.group == colour.group and value.attribute and value.unit != colour.unit
    plain = query_terms("why did she choose colours and patterns for the bowl?")
    assert not any(is_value_class(t.feature) for t in plain)
    assert all(t.group == 0 for t in plain)
    # An "or" before it keeps its own group; the value joins the attribute's.
    joined = query_terms("what colour is the bike or the car?")
    groups = {t.feature: t.group for t in joined}
    assert groups["=color"] == groups["~color"] and groups["bike"] == groups["car"] != groups["~color"]
    assert build_plan(["我的自行车是什么颜色？"]).focus[-1].feature == "=color"


THINGS = (
    "My phone's colour is black.",
    "My phone's brand is Samsung.",
    "My bike is blue.",
    "My bike cost 2300 dollars.",
    "My laptop is a Lenovo.",
)


def test_a_value_answers_the_attribute_a_short_question_names(add, reader) -> None:
    claims = [add(text) for text in THINGS]
    # The bike's claim states a colour without the word; the phone's states the word for
    # another subject: only the bike's answers, and no complement adds the phone's colour.
    assert ids(recall(reader.conn, "what colour is my bike?", now=NOW)) == [claims[2].id]
    assert ids(recall(reader.conn, "how much did my bike cost?", now=NOW)) == [claims[3].id]
    # Speaking of colours is not asking one: a claim holding some colour does not answer.
    found = recall(reader.conn, "why do phones come in so many colours?", now=NOW).claims
    assert claims[2].id not in {c.memory_id for c in found}


def test_chinese_values_and_places(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "我的手机的颜色是黑色。",
            "我的自行车是蓝色的。",
            "我的笔记本电脑是联想的。",
            "我的笔记本电脑价格是6999元。",
            "我的笔记本电脑是在京东买的。",
            "实验小学的地址是海淀区中关村大街27号。",
        )
    ]
    assert ids(recall(reader.conn, "我的自行车是什么颜色？", now=NOW)) == [claims[1].id]
    # "多少钱" asks the cost: of the laptop's three claims only the price answers.
    assert ids(recall(reader.conn, "我的笔记本电脑多少钱买的？", now=NOW)) == [claims[3].id]
    # "在什么地方" asks where, as 在哪里 does: the answer is a place, not the word 地方.
    assert ids(recall(reader.conn, "实验小学在什么地方？", now=NOW)) == [claims[5].id]


def test_a_rent_in_colloquial_yuan_answers_how_much(add, reader) -> None:
    rent = add("帮我写封邮件给房东吧，厨房水龙头漏水两个星期了还没人来修，每个月房租6500块，实在太过分了。")
    add("我们读书会每个月第一个周四晚上聚会。")
    add("我买了一块手表，是在京东买的。")
    assert ids(recall(reader.conn, "我每个月房租多少钱？", now=NOW)) == [rent.id]


def test_a_time_or_date_asked_without_its_word(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "乐刻健身的地址是滨江区江南大道588号。",
            "乐刻健身的营业时间是早上六点到晚上十点。",
            "乐刻健身的月卡价格是199元。",
            "我的车是特斯拉Model 3。",
            "特斯拉Model 3的颜色是红色。",
            "特斯拉Model 3的购买时间是2022年5月。",
        )
    ]
    # "几点关门" asks a clock time: only the opening hours state one.
    assert ids(recall(reader.conn, "乐刻健身几点关门？", now=NOW)) == [claims[1].id]
    # "哪年买的" asks a date: the purchase date, not the car's colour or what it is.
    assert ids(recall(reader.conn, "我的特斯拉是哪年买的？", now=NOW)) == [claims[5].id]
    # A question that does not ask when keeps every claim it did before.
    assert claims[2].id in set(ids(recall(reader.conn, "乐刻健身的月卡多少钱？", now=NOW)))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("A linter called `ruff` checks the code.", True),
        ("The var is called API_KEY.", True),
        ("The cleanup script is called nightly by cron.", False),  # a call, not a name
        ("named arguments are called with keywords", False),
    ],
)
def test_english_names_as_written(text: str, name: bool) -> None:
    assert ("=name" in held_values(normalize(text), text)) is name


def test_other_senses_of_the_naming_verbs_answer_no_name(add, reader) -> None:
    add("The cleanup script is called nightly by cron.")
    add("The deploy script lives in ops/.")
    assert recall(reader.conn, "what is the name of the cleanup script?", now=NOW).claims == []
    add("我的狗叫醒了我。")
    add("CI 被叫停了。")
    assert recall(reader.conn, "CI 叫什么名字？", now=NOW).claims == []
    service = add("我们的支付服务叫 paygate。")
    assert ids(recall(reader.conn, "我们的支付服务叫什么？", now=NOW)) == [service.id]


def test_points_and_time_complexity_are_no_time(add, reader) -> None:
    points = add("代码评审有3点需要注意。")
    owner = add("代码评审由 Alice 负责。")
    # "3点" is three points: it states no time, so it is not taken over the other claim.
    found = ids(recall(reader.conn, "代码评审几点开始？", now=NOW))
    assert found != [points.id] and (not found or owner.id in found)
    add("The merge sort was rewritten on Monday.")
    assert recall(reader.conn, "what time complexity does the merge sort have?", now=NOW).claims == []


def test_which_points_asks_no_time(add, reader) -> None:
    coverage = add("代码评审要看测试覆盖率。")
    naming = add("代码评审要检查命名规范。")
    found = set(ids(recall(reader.conn, "代码评审要注意哪几点？", now=NOW)))
    assert found == {coverage.id, naming.id}


def test_a_name_given_with_its_verb(add, reader) -> None:
    uncle = add("我舅舅叫张翰林。")
    add("我舅舅今年52岁。")
    add("我的表哥叫王磊。")
    assert ids(recall(reader.conn, "我舅舅叫什么来着？", now=NOW)) == [uncle.id]
    assert ids(recall(reader.conn, "我舅舅叫什么名字？", now=NOW)) == [uncle.id]
    puppy = add("We adopted a beagle puppy and named him Biscuit.")
    add("The beagle puppy sleeps all afternoon.")
    assert ids(recall(reader.conn, "What's the beagle puppy's name?", now=NOW)) == [puppy.id]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My sister Emma is getting married in Lisbon.", True),
        ("Our dog, Max, hates the rain.", True),
        ("We adopted two cats, Miso and Tofu, from the shelter.", True),
        ("my sister emma is getting married", False),  # no capital: nothing shows a name
        ("My sister Is late again", True),  # a capital is read as a name: a rare misreading
        ("My manager I barely know.", False),
        ("The config file My settings", False),
    ],
)
def test_a_name_after_my_relation_as_written(text: str, name: bool) -> None:
    assert ("=name" in held_values(normalize(text), text)) is name
    assert "=name" not in held_values(normalize(text))  # the raw text shows the capital


def test_a_relations_name_as_written_answers_what_the_name_is(add, reader) -> None:
    sister = add("My sister Emma is getting married in Lisbon next June.")
    add("My sister lives in Porto.")
    assert ids(recall(reader.conn, "What's my sister's name?", now=NOW)) == [sister.id]


def test_english_things_named_two_ways(add, reader) -> None:
    movie = add("My favorite movie is Spirited Away.")
    add("I prefer aisle seats on flights.")
    assert ids(recall(reader.conn, "What's my favorite film?", now=NOW)) == [movie.id]
    # A wedding is a marriage: "getting married" answers where the wedding is, in either language.
    married = add("My sister Emma is getting married in Lisbon next June.")
    add("My sister Emma runs a bakery in Porto.")
    assert ids(recall(reader.conn, "Where is my sister's wedding?", now=NOW)) == [married.id]
    assert "~wedding" in [t.feature for t in query_terms("我表姐什么时候结婚？")]
    # "Wed" is Wednesday, not a wedding.
    assert "~wedding" not in features("standup moved to Wed 3pm")


def test_a_language_answers_what_language_without_the_word(add, reader) -> None:
    billing = add("The billing service is written in Go and deploys to Fly.io.")
    learning = add("I've been learning Portuguese since the spring.")
    add("The billing service sends invoices every Monday.")
    add("The language setting on the TV is stuck on the default.")
    add("Language exchange meetups happen on Thursdays.")
    add("I've been learning to bake sourdough.")
    assert ids(recall(reader.conn, "What language is the billing service written in?", now=NOW)) == [billing.id]
    assert ids(recall(reader.conn, "What language am I learning?", now=NOW)) == [learning.id]
    # A subject no claim names gets no other subject's language.
    assert ids(recall(reader.conn, "What language is the search service written in?", now=NOW)) == []


def test_where_a_person_comes_from_without_the_word(add, reader) -> None:
    priya = add("My coworker Priya is originally from Pune.")
    add("Priya's favourite dish is misal pav.")
    cousin = add("我表姐是山东济南人。")
    add("我表姐在杭州工作。")
    add("My boss flew in from Denver this morning.")
    assert ids(recall(reader.conn, "Where is Priya from?", now=NOW)) == [priya.id]
    assert ids(recall(reader.conn, "我表姐是哪个地方的人？", now=NOW)) == [cousin.id]
    # Flying in from a city says where someone was, not where they come from.
    assert ids(recall(reader.conn, "Where is my boss from?", now=NOW)) == []


def test_a_claim_stating_the_value_answers_before_one_holding_only_the_word(add, reader) -> None:
    workplace = add("我上司工作的地方在深圳广东。")
    job = add("我的上司是干建筑工人的。")
    add("我表姐是护士。")
    # 工作 names the attribute in the workplace's claim, and scores higher, but states no job.
    assert ids(recall(reader.conn, "我上司是做什么工作的呢？", now=NOW)) == [job.id]
    verdict = explain_claim(reader.conn, "我上司是做什么工作的呢？", workplace.id, now=NOW)
    assert verdict["reason"] == "no_value" and verdict["stage"] == "selection"
    # With no claim stating a value, the word still answers, as before.
    assert ids(recall(reader.conn, "我上司工作的地方在哪里？", now=NOW)) == [workplace.id]


def test_an_opening_time_answers_before_a_claim_about_the_times(add, reader) -> None:
    add("The gym's opening times change in the summer.")
    opens = add("The gym opens at 6 am on weekdays.")
    assert ids(recall(reader.conn, "what time does the gym open?", now=NOW)) == [opens.id]


def test_only_the_index_holds_the_classes() -> None:
    # What capture and consolidation compare (features) is a claim's words: "CI is red" and
    # "tests green locally" share none.
    assert not any(is_value_class(f) for f in features("CI is red on main"))
    assert not any(is_value_class(f) for f in features("我的自行车是蓝色的，花了2300元"))
    fields = index_fields("My bike is blue.", ["bike colour blue"])
    assert fields["body"]["=color"] == 1 and fields["alias"]["=color"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "sed 's/a/b/' $1 > $2",  # a shell's arguments, not prices
        "awk '{print $1}'",
        "三元表达式和二元运算符",
        "一元二次方程",
        "元组和元素",
        "a red-black tree and a blue-green deployment",
        "the app lives in /srv/red/app and node-red runs beside it",
        "the crash is at billing/api.py:120 and src/a.ts:88",  # a source location
        "FROM node:18-alpine; we pin redis:7",  # image tags, no ports
        "TODO:1234 and pid:4567",
        "git remote add origin git@github.com:acme/billing.git",  # no mail address
        "the ratio is 3:1 and the crash is at app.py:12:30",  # no clock time
        "you may 2x the buffer",
    ],
)
def test_coding_text_holds_no_value(text: str) -> None:
    assert held_values(normalize(text)) == []


def test_a_value_class_is_no_word_of_the_claim_for_its_length(store) -> None:
    from memory_core.store.tables.memories import put_memory
    from tests.factories import make_memory

    with store.transaction() as conn:
        put_memory(conn, make_memory("my bike is blue", id="a" * 24))
        put_memory(conn, make_memory("my bike is big", id="b" * 24))
    rows = dict(store.conn.execute("SELECT memory_id, feature_count FROM index_docs").fetchall())
    assert rows["a" * 24] == rows["b" * 24]


def test_only_the_clause_naming_the_attribute_asks() -> None:
    text = "We need to cut the cost of the build. How much time does the test suite take?"
    assert not any(is_value_class(t.feature) for t in query_terms(text))
    assert any(t.feature == "=cost" for t in query_terms("The build is slow. How much does the runner cost?"))


def test_an_asked_value_leaves_a_follow_up_a_follow_up() -> None:
    plan = build_plan(["Tell me about the new dashboard widget", "what colour is its header bar?"])
    assert plan.mode == "follow_up" and {"dashboard", "widget"} <= {t.feature for t in plan.context}


def test_a_value_class_neither_bridges_nor_splits_the_cutoff(add, reader) -> None:
    bike = add("My bike was $300.")
    add("Nike is the brand, $50.")
    found = recall(reader.conn, "how much did my bike cost, and what brand is it?", now=NOW).claims
    assert [c.memory_id for c in found] == [bike.id]
    blue = add("My bike colour is blue, a deep navy blue with silver rims.")
    add("My bike had a red bell when I borrowed it from my sister last summer.")
    found = recall(reader.conn, "what colour is my bike?", now=NOW).claims
    assert [c.memory_id for c in found] == [blue.id]


def test_a_comparison_keeps_its_own_words(add, reader) -> None:
    cheaper = add("楼下那家咖啡店比星巴克便宜很多。")
    add("公司附近的咖啡店很安静。")
    assert ids(recall(reader.conn, "哪家咖啡店更便宜？", now=NOW)) == [cheaper.id]


def test_which_is_dearer_compares_prices(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "扫地机器人的价格是2999元。",
            "扫地机器人的购买地点是苏宁易购。",
            "空气净化器的价格是1299元。",
            "空气净化器的购买地点是京东。",
            "My bike cost 300 dollars.",
            "My bike is blue.",
            "My laptop was $1200.",
            "My laptop is a Lenovo.",
        )
    ]
    found = recall(reader.conn, "扫地机器人和空气净化器哪个更贵？", now=NOW).claims
    assert {c.memory_id for c in found} == {claims[0].id, claims[2].id}
    found = recall(reader.conn, "扫地机器人和空气净化器哪个更便宜？", now=NOW).claims
    assert {c.memory_id for c in found} == {claims[0].id, claims[2].id}
    found = recall(reader.conn, "which is cheaper, my bike or my laptop?", now=NOW).claims
    assert {c.memory_id for c in found} == {claims[4].id, claims[6].id}


def test_which_opens_earlier_compares_times(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "蓝山咖啡馆的地址是衡山路12号。",
            "蓝山咖啡馆的营业时间是早上八点到晚上十点。",
            "星河游泳馆的营业时间是早上六点到晚上九点。",
            "星河游泳馆的门票价格是60元。",
        )
    ]
    found = recall(reader.conn, "蓝山咖啡馆和星河游泳馆哪个开门更早？", now=NOW).claims
    assert {c.memory_id for c in found} == {claims[1].id, claims[2].id}
    assert asked_value("~time", "哪个开门更早") == "=when" and asked_value("~time", "我们更早出发") is None


@pytest.mark.parametrize(
    ("text", "cost"),
    [
        ("这家店比星巴克便宜很多", True),
        ("the N+1 query is expensive", True),
        ("贵州的天气", False),
        ("宝贵的意见", False),
    ],
)
def test_cheap_and_dear_are_the_cost(text: str, cost: bool) -> None:
    assert ("~cost" in features(text)) is cost


def test_what_was_paid_is_a_cost(add, reader) -> None:
    tickets = add("The concert tickets were $120 each.")
    add("The concert was in Denver with my sister.")
    jacket = add("I bought a red jacket for the concert.")
    found = recall(reader.conn, "how much did I pay for the concert tickets?", now=NOW).claims
    assert [c.memory_id for c in found] == [tickets.id]
    found = recall(reader.conn, "what color was the jacket I bought for the concert?", now=NOW).claims
    assert [c.memory_id for c in found] == [jacket.id]


def test_a_coding_memory_states_ports_and_addresses_without_their_words(add, reader) -> None:
    api = add("The billing API runs on localhost:8080 in development.")
    add("The billing API is written in Go.")
    bob = add("Reach the on-call engineer Bob at bob.smith@example.com.")
    add("Postgres listens on port 5433 on the dev box.")
    for question in ("what port does the billing API use?", "billing API port?"):
        assert ids(recall(reader.conn, question, now=NOW)) == [api.id], question
    assert ids(recall(reader.conn, "what is Bob's email?", now=NOW)) == [bob.id]
    # Another subject's port is still no answer.
    assert recall(reader.conn, "what port does the auth service use?", now=NOW).claims == []


def test_the_attribute_and_its_value_are_credited_and_missed_once(add, reader) -> None:
    from memory_core.recall.service import explain_claim

    worded = add("Bob's email is bob.smith@example.com.")
    bare = add("Reach Bob at bob@example.com.")
    word_only = add("Bob's email is on his card.")
    phone = add("Bob's phone is 555 0100.")
    query = "what is Bob's email?"
    both = explain_claim(reader.conn, query, worded.id, now=NOW)
    one = explain_claim(reader.conn, query, bare.id, now=NOW)
    word = explain_claim(reader.conn, query, word_only.id, now=NOW)
    assert {"~email", "=email"} <= set(both["matched"]) and "=email" in one["matched"]
    # The word and the address are one answer, not two: no more weight than one of them.
    assert both["raw"] == word["raw"] == one["raw"]
    assert both["missing"] == [] and one["missing"] == []
    # A claim holding neither misses the attribute, said once.
    assert explain_claim(reader.conn, query, phone.id, now=NOW)["missing"] == ["~email"]


def test_the_heavier_of_word_and_value_counts(add, reader) -> None:
    # "colour" is in many claims, a colour value in few: holding both counts the rarer once,
    # so the claim stating the bike's colour outranks one that only holds some colour.
    blue = add("My bike's colour is blue.")
    add("My bike has a red bell.")
    for n, thing in enumerate(["dashboard", "logo", "website", "slide", "poster", "brochure", "app", "banner"]):
        add(f"The {thing} colour scheme was discussed in meeting {n}.")
    assert ids(recall(reader.conn, "what colour is my bike?", now=NOW)) == [blue.id]


def test_the_excerpt_holds_the_value_asked(add, reader) -> None:
    steps = " ".join(
        f"Step {i}: the worker reconciles ledger batch {i} against the payment processor records and retries."
        for i in range(1, 6)
    )
    add(
        "The billing API is the Go service that issues invoices for every customer account. "
        + steps
        + " In development it runs on localhost:8080 behind the nginx proxy."
    )
    result = recall(reader.conn, "what port does the billing API use?", now=NOW)
    assert len(result.claims) == 1 and "localhost:8080" in result.digest


def test_a_host_name_does_not_end_a_clause() -> None:
    assert any(t.feature == "=cost" for t in query_terms("how much does vercel.com cost per month?"))


def test_the_classes_read_hostile_runs_once() -> None:
    # Runs of name characters broken by dots or dashes: each class tries a run once, not once
    # a character (the port class took seconds on 20,000 such characters).
    for run in ("a1-" * 30_000, "v1." * 30_000, "db.a" * 20_000 + ":5432", "1" * 30_000 + "多", "三" * 30_000 + "块x"):
        assert held_values(run, run) in ([], ["=port"])
    for run in ("是做" * 20_000, "是个" * 20_000 + "师", "is a " * 20_000, "上的是" * 15_000, "工程" * 20_000):
        held_values(run, run)  # each bounded: no pattern backtracks over the run


def test_an_occupation_or_schooling_answers_without_its_word(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "我叔叔的老家在江苏苏州。",
            "我叔叔的单位叫南京食神阁餐饮店。",
            "我叔叔是厨师长。",
            "我叔叔上的是专科。",
            "我表哥是做销售的。",
        )
    ]
    # Five claims about the uncle tied on his name alone: the one stating a trade answers
    # "what does he do", the one stating a level of schooling "what schooling".
    assert ids(recall(reader.conn, "我叔叔是做什么工作的呢？", now=NOW)) == [claims[2].id]
    assert ids(recall(reader.conn, "我叔叔是干啥的？", now=NOW)) == [claims[2].id]
    assert ids(recall(reader.conn, "我叔叔是什么学历？", now=NOW)) == [claims[3].id]
    # Another person's trade answers nobody's question about the uncle's.
    assert claims[4].id not in set(ids(recall(reader.conn, "我叔叔是干啥的？", now=NOW)))


def test_an_english_occupation_answers_whose_job_it_is(add, reader) -> None:
    jake = add("My brother Jake works as a firefighter in Boston.")
    add("My sister lives in Denver and loves skiing.")
    add("The nightly cleanup job deletes old logs.")
    assert ids(recall(reader.conn, "what is my brother's job?", now=NOW)) == [jake.id]
    # A program's job is no person's: the occupation class is not asked.
    found = recall(reader.conn, "what does the cleanup job do?", now=NOW).claims
    assert jake.id not in {c.memory_id for c in found}


def test_english_asks_an_age_or_a_job_by_a_phrase_alone(add, reader) -> None:
    age = add("My cousin Mike is 34 years old.")
    add("My cousin Mike lives in Ohio with his two dogs.")
    trade = add("My brother Jake works as a firefighter in Boston.")
    add("My brother Jake loves hiking on weekends.")
    # "how old" and "for a living" name no word of what they ask: the age and the job join
    # the question, and a claim stating a value of them answers it.
    assert [t.feature for t in query_terms("how old is my cousin?")] == ["cousin", "~age", "=age"]
    assert ids(recall(reader.conn, "how old is my cousin?", now=NOW)) == [age.id]
    found = recall(reader.conn, "what does my brother do for a living?", now=NOW).claims
    assert [c.memory_id for c in found] == [trade.id]


def test_a_height_answers_how_tall_without_its_word(add, reader) -> None:
    tall = add("我表弟一米八，特别喜欢打篮球。")
    add("我表弟在深圳上班。")
    add("我表弟的老家是湖南长沙。")
    assert ids(recall(reader.conn, "我表弟多高？", now=NOW)) == [tall.id]
    him = add("My brother Jake is 6 feet tall and plays basketball.")
    add("My brother Jake lives in Boston.")
    assert ids(recall(reader.conn, "how tall is my brother?", now=NOW)) == [him.id]


def test_a_brand_or_a_model_answers_without_its_word(add, reader) -> None:
    claims = [
        add(text)
        for text in (
            "我上个月买了一台新的笔记本电脑。",
            "这台笔记本电脑是联想的，型号是小新Pro16。",
            "笔记本电脑花了我六千八百元。",
            "我的笔记本电脑是在京东上买的。",
            "我爸爸的手机是小米14。",
            "我妈妈用的是苹果手机，iPhone 13。",
        )
    ]
    # Four claims tie on the laptop; the one naming its maker answers which brand it is.
    assert ids(recall(reader.conn, "我的笔记本电脑是什么牌子的？", now=NOW)) == [claims[1].id]
    # 妈 and 爸 alone are the mother and the father; a model is told by its maker's name.
    assert ids(recall(reader.conn, "我爸的手机是什么型号？", now=NOW)) == [claims[4].id]
    assert claims[5].id in set(ids(recall(reader.conn, "我妈用的什么手机？", now=NOW)))
    # English too, and a brand of another thing answers nothing.
    pc = add("My laptop is a ThinkPad X1 Carbon I bought in 2022.")
    add("My laptop has 32 GB of memory.")
    assert ids(recall(reader.conn, "what brand is my laptop?", now=NOW)) == [pc.id]
    assert recall(reader.conn, "我的自行车是什么牌子？", now=NOW).claims == []


def test_a_distance_answers_how_far_without_its_word(add, reader) -> None:
    far = add("那家火锅店离我家大概三公里。")
    add("那家火锅店叫海底捞。")
    add("那家火锅店的招牌菜是毛肚。")
    assert ids(recall(reader.conn, "火锅店离我家多远？", now=NOW)) == [far.id]
    cabin = add("The cabin is 12 miles from the lake.")
    add("The cabin has a wood stove and two bedrooms.")
    assert ids(recall(reader.conn, "how far is the cabin from the lake?", now=NOW)) == [cabin.id]


def test_a_car_is_told_by_its_maker(add, reader) -> None:
    mine = add(
        "I finally traded in my old Corolla for a used Subaru Outback, so road trips are a lot more comfortable now."
    )
    add("Great choice of car for the Pacific Northwest! Try the coastal route along Highway 101.")
    add("For long days of walking, look at the Hoka Clifton or New Balance 1080.")
    # The maker answers "what car": not the claim holding the word without one, nor the
    # makers of shoes.
    assert ids(recall(reader.conn, "What car do I drive now?", now=NOW)) == [mine.id]
    zh = add("我上周把旧的卡罗拉卖了，换了一辆二手的斯巴鲁森林人，开长途舒服多了。")
    add("最后在迪卡侬买了一双灰色的跑鞋，穿着特别舒服。")
    # (the English claim states the same car: both answer)
    assert set(ids(recall(reader.conn, "我现在开的什么车？", now=NOW))) == {zh.id, mine.id}


def test_a_bare_amount_after_spending_or_rent_is_the_cost(add, reader) -> None:
    shoes = add("最后在迪卡侬买了一双灰色的跑鞋，花了四百多，穿着特别舒服。")
    rent = add("我的房子三月份到期，房租涨到了每月四千五，想搬到离单位近一点的地方。")
    add("我每天晚上跑步三十分钟。")
    assert ids(recall(reader.conn, "我的跑鞋花了多少钱？", now=NOW)) == [shoes.id]
    assert ids(recall(reader.conn, "我房租多少钱？", now=NOW)) == [rent.id]


def test_what_i_do_for_work_asks_the_job(add, reader) -> None:
    job = add("I work as a physical therapist at a sports clinic, so I'm on my feet all day.")
    add("I've been learning the cello; my teacher says my bow technique needs work.")
    add("My lease ends in March and I'm thinking of moving closer to work.")
    assert ids(recall(reader.conn, "What do I do for work?", now=NOW)) == [job.id]


def test_a_database_named_answers_which_database(add, reader) -> None:
    setup = add(
        "Let's set up the inventory-service. I want FastAPI, PostgreSQL 16, and SQLAlchemy 2 with async sessions."
    )
    add("The inventory-service runs on port 8041 locally.")
    add("Celery keeps dropping tasks: switch the inventory-service to Dramatiq with Redis.")
    # Every claim names the service; the one naming a database answers, not Redis's.
    assert ids(recall(reader.conn, "What database does the inventory-service use?", now=NOW)) == [setup.id]


def test_a_named_value_is_as_good_an_answer_as_the_word_with_it(add, reader) -> None:
    first = add("The ecommerce-api keeps its orders in PostgreSQL.", at=NOW - 9 * DAY)
    second = add("Will the dashboard read the same PostgreSQL database as the ecommerce-api?", at=NOW - 2 * DAY)
    for text in ("Database backups run nightly at 2am.", "Database migrations go through Alembic."):
        add(text)
    add("The staging database is reset every Monday.")
    # The second holds the word beside the name; the first names the database alone and
    # answers as much (a name from the databases' lexicon states the attribute): it is no
    # lesser facet of the same answer.
    found = set(ids(recall(reader.conn, "What database does the ecommerce-api use?", now=NOW)))
    assert found == {first.id, second.id}
    # A value read by a pattern may be another attribute's: the word still tells them apart.
    uncle = add("我舅舅的名字叫张伟明。")
    add("我舅舅的单位叫杭州仁爱护理院。")
    assert ids(recall(reader.conn, "我舅舅叫什么名字来着？", now=NOW)) == [uncle.id]


def test_a_maker_opening_a_subject_names_it_as_its_kind_does(add, reader) -> None:
    add("我的第一台相机是佳能的EOS R6。")
    fuji = add("后来我又买了一台富士的X100V，是银色的。")
    add("富士相机花了一万一千元。")
    # "富士相机" is the Fujifilm camera: the claim naming 富士 and a colour answers its colour
    # (the bigram 士相 over the maker's name is no word of it).
    assert ids(recall(reader.conn, "富士相机是什么颜色的？", now=NOW)) == [fuji.id]
    from memory_core.recall.query_plan import plan_query
    from memory_core.recall.query_units import question_units

    terms = plan_query("富士相机是什么颜色的？").focus
    unit = next(u for u in question_units(terms, {t.feature: 1.0 for t in terms}, {}) if u.cjk)
    assert [t.feature for t in unit.core] == ["富士", "相机"]
