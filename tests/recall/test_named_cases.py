"""The behaviours the recall specification names, end to end through the real index."""

from __future__ import annotations

from memory_core.recall.service import recall, search, turn_recall
from memory_core.store.tables.memories import put_memory
from memory_core.text.asking import query_text
from tests.support.recalled import ids
from tests.support.times import NOW


def test_sqlite_port_auth_continue(add, reader) -> None:
    port = add("SQLite listens on port 5432 in the test harness")
    auth = add("SQLite authentication uses a shared secret file")
    add("PostgreSQL authentication uses md5 passwords")
    add("PostgreSQL listens on port 5433")
    conversation = ["Tell me about SQLite", "port?", "auth?", "continue"]

    first = turn_recall(reader.conn, conversation[:2], now=NOW, session_is_fresh=False)
    assert ids(first) == [port.id]
    # "port?" asks the port's value: a port after a host ("=port") would answer it too.
    assert first.diagnostics["plan"] == {"mode": "follow_up", "focus": ["~port", "=port"], "context": ["sqlite"]}

    second = turn_recall(reader.conn, conversation[:3], now=NOW, session_is_fresh=False)
    assert ids(second) == [auth.id]  # not the old port answer, not PostgreSQL's auth

    third = turn_recall(reader.conn, conversation, now=NOW, session_is_fresh=False)
    assert ids(third) == [auth.id]
    assert third.diagnostics["plan"]["mode"] == "inherited"
    assert third.diagnostics["plan"]["context"] == ["sqlite"]


def test_suppressed_auth_has_no_substitute(add, reader, store) -> None:
    auth = add("SQLite authentication uses a shared secret file")
    add("PostgreSQL authentication uses md5 passwords")
    add("SQLite timeout is 15 seconds")
    assert ids(recall(reader.conn, "SQLite auth?", now=NOW)) == [auth.id]

    with store.transaction() as conn:
        put_memory(conn, auth.model_copy(update={"status": "forgotten"}))

    result = recall(reader.conn, "SQLite auth?", now=NOW)
    assert result.claims == [] and result.digest == ""
    assert search(reader.conn, "SQLite auth?", now=NOW).claims == []
    assert [c["excluded"] for c in result.diagnostics["candidates"]] == ["named_subject_missing"]
    followed = turn_recall(reader.conn, ["SQLite", "auth?"], now=NOW, session_is_fresh=False)
    assert followed.claims == []


def test_quoted_question_cannot_qualify_alone(add, reader) -> None:
    add('The user asked "what port does Redis use?" during setup')
    add("「Redis 的端口是多少？」 was asked twice")
    assert recall(reader.conn, "Redis port?", now=NOW).claims == []
    answer = add("Redis listens on port 6380 in development")
    assert ids(recall(reader.conn, "Redis port?", now=NOW)) == [answer.id]


def test_quoted_statement_is_ordinary_evidence(add, reader) -> None:
    quoted = add('The README says "Redis listens on port 6380".')
    assert ids(recall(reader.conn, "Redis port", now=NOW)) == [quoted.id]


def test_paths_do_not_imply_topics(add, reader) -> None:
    in_path = add("Build output goes to /work/pi-memory-evolution/dist")
    topical = add("The memory cache holds 64 MB")
    assert ids(recall(reader.conn, "memory", now=NOW)) == [topical.id]
    assert ids(recall(reader.conn, "evolution", now=NOW)) == []
    assert ids(recall(reader.conn, "what is in /work/pi-memory-evolution?", now=NOW)) == [in_path.id]


def test_qualified_paths_must_match_exactly(add, reader) -> None:
    here = add("Settings live in /etc/app/config.toml")
    add("Settings live in /home/me/other/config.toml", origin="/work/other")
    assert ids(recall(reader.conn, "/etc/app/config.toml", now=NOW)) == [here.id]
    assert len(recall(reader.conn, "config.toml", now=NOW).claims) == 2
    assert recall(reader.conn, "/srv/config.toml", now=NOW).claims == []


def test_origin_names_help_but_attributes_need_the_body(add, reader) -> None:
    body = add("The dev server listens on port 3000", origin="/work/shopfront")
    add("The dev server listens on port 4000", origin="/work/backoffice")
    assert ids(recall(reader.conn, "shopfront port?", now=NOW)) == [body.id]
    add("Shopfront deploys on Fridays", origin="/work/elsewhere")
    assert recall(reader.conn, "shopfront timeout?", now=NOW).claims == []


def test_unknown_single_character_subjects_are_barriers(add, reader) -> None:
    add("SQLite listens on port 5432 in the test harness")
    add("数据库使用 SQLite")
    assert recall(reader.conn, "猫?", now=NOW).claims == []
    assert recall(reader.conn, "库?", now=NOW).claims == []  # no fragment of 数据库
    assert recall(reader.conn, "z port?", now=NOW).claims == []
    barrier = turn_recall(reader.conn, ["SQLite", "猫?", "continue"], now=NOW, session_is_fresh=False)
    assert barrier.claims == [] and barrier.diagnostics["plan"]["focus"] == ["猫"]


def test_known_single_character_subject_matches(add, reader) -> None:
    cat = add("我喜欢猫", kind="preference")
    assert ids(recall(reader.conn, "猫？", now=NOW)) == [cat.id]


def test_bilingual_aliases(add, reader) -> None:
    english = add("The project stores everything in a SQLite database")
    chinese = add("服务器的端口是 8080", origin="/work/zh")
    assert ids(recall(reader.conn, "数据库是什么？", now=NOW)) == [english.id]
    assert ids(recall(reader.conn, "server port?", now=NOW)) == [chinese.id]
    aliased = add("Nightly snapshots go to the cold bucket", search_terms=["备份", "backup"])
    assert ids(recall(reader.conn, "备份在哪里？", now=NOW)) == [aliased.id]


def test_model_search_terms_extend_vocabulary(add, reader) -> None:
    tagged = add("Use pnpm, never npm", kind="preference", search_terms=["package manager"])
    assert ids(recall(reader.conn, "which package manager?", now=NOW)) == [tagged.id]


def test_continue_in_a_fresh_session_recalls_nothing(add, reader) -> None:
    add("SQLite listens on port 5432 in the test harness")
    for text in ("continue", "继续", "go on", "ok, continue."):
        fresh = turn_recall(reader.conn, [text], now=NOW, session_is_fresh=True)
        assert fresh.claims == [] and fresh.digest == ""
        assert fresh.diagnostics["plan"]["focus"] == []
    # Even if a caller passes earlier texts, a fresh session does not inherit them.
    assert turn_recall(reader.conn, ["SQLite port", "continue"], now=NOW, session_is_fresh=True).claims == []


def test_reset_phrases_stop_inheritance(add, reader) -> None:
    add("SQLite listens on port 5432 in the test harness")
    result = turn_recall(reader.conn, ["SQLite port?", "new topic", "continue"], now=NOW, session_is_fresh=False)
    assert result.claims == []


def test_recall_framing_is_not_the_subject(add, reader) -> None:
    port = add("SQLite listens on port 5432 in the test harness")
    add("Remember to rotate the logs weekly")
    result = recall(reader.conn, "Do you remember the SQLite port?", now=NOW)
    assert ids(result) == [port.id]
    assert result.diagnostics["plan"]["focus"] == ["sqlite", "~port", "=port"]
    zh = recall(reader.conn, "你还记得 SQLite 的端口是多少吗？", now=NOW)
    assert ids(zh) == [port.id]


def test_explicit_new_subject_stands_alone(add, reader) -> None:
    add("SQLite listens on port 5432 in the test harness")
    redis = add("Redis listens on port 6380 in development")
    result = turn_recall(reader.conn, ["SQLite port?", "Redis?"], now=NOW, session_is_fresh=False)
    assert ids(result) == [redis.id]
    assert result.diagnostics["plan"]["context"] == []


def test_generic_words_cannot_qualify(add, reader) -> None:
    add("Project status: the config settings are the default values")
    assert recall(reader.conn, "project status config", now=NOW).claims == []


def test_no_recency_fallback(add, reader) -> None:
    for n in range(20):
        add(f"Release {n} shipped with changelog entry {n}")
    assert recall(reader.conn, "kubernetes ingress", now=NOW).claims == []
    assert recall(reader.conn, "what happened?", now=NOW).claims == []


def test_single_match_beside_unknown_words_fails(add, reader) -> None:
    add("The worker pool has eight threads")
    assert recall(reader.conn, "zyxwv threads", now=NOW).claims == []
    assert len(recall(reader.conn, "worker threads", now=NOW).claims) == 1


def test_three_focus_features_need_two_matches(add, reader) -> None:
    add("Grafana dashboards are exported weekly")
    add("Loki retention policy keeps fourteen days")
    assert recall(reader.conn, "grafana loki tempo", now=NOW).claims == []


def test_alternatives_each_get_their_answer(add, reader) -> None:
    sqlite = add("SQLite listens on port 5432 in the test harness")
    postgres = add("PostgreSQL listens on port 5433 in staging", origin="/work/db")
    add("Redis listens on port 6380 in development", origin="/work/cache")
    both = recall(reader.conn, "SQLite or PostgreSQL port?", now=NOW)
    assert set(ids(both)) == {sqlite.id, postgres.id}
    zh = recall(reader.conn, "SQLite和PostgreSQL哪个端口更大？", now=NOW)
    assert set(ids(zh)) == {sqlite.id, postgres.id}
    # Alternatives still need the attribute: a bare mention of either is no answer.
    add("PostgreSQL backups run nightly", origin="/work/db2")
    assert set(ids(recall(reader.conn, "SQLite or PostgreSQL port?", now=NOW))) == {sqlite.id, postgres.id}


def test_self_corrected_question(add, reader) -> None:
    redis = add("Redis listens on port 6380 in development")
    add("The weather service caches forecasts for an hour")
    text = (
        "The weather has been odd and the forecast service keeps timing out. "
        "Sorry, what I actually want to ask is: which port does Redis use?"
    )
    assert ids(recall(reader.conn, text, now=NOW)) == [redis.id]
    zh = "最近天气预报服务总是超时。不好意思，我真正想问的是：Redis 的端口是多少？"
    assert ids(recall(reader.conn, zh, now=NOW)) == [redis.id]


def test_a_turn_to_another_matter_sets_the_preamble_aside(add, reader) -> None:
    meeting = add("读书会的时间是下周六下午两点。")
    add("读书会的地点是青松书店。")
    add("我的朋友小王也会参加读书会。")
    zh = "最近天气不错，想出去走走，看看公园里的花开了没有。对了，读书会是什么时候？"
    assert ids(recall(reader.conn, zh, now=NOW)) == [meeting.id]
    dentist = add("My dentist's number is 555-0142.")
    en = "I had a rough day at work and the traffic was awful. By the way, what is my dentist's number?"
    assert ids(recall(reader.conn, en, now=NOW)) == [dentist.id]
    assert query_text("the way we deploy is odd. what port?") == "the way we deploy is odd. what port?"
    assert query_text("今天好累，加班到十点。言归正传，读书会几点开始？") == "读书会几点开始?"


def test_a_turn_that_asks_nothing_or_points_back_keeps_what_came_before() -> None:
    # what follows the turn is the question only when it asks, and on its own
    asked = "what port does the billing api use? by the way, thanks for your help earlier."
    assert query_text("What port does the billing API use? By the way, thanks for your help earlier.") == asked
    assert "paygate" in query_text("paygate的端口是多少？对了，我明天要出差，回复简短一点。")
    assert "paygate" in query_text("paygate的端口是多少？对了，还有它的数据库地址。")
    text = "The billing API times out on staging. By the way, what port does it use?"
    assert "billing" in query_text(text)
