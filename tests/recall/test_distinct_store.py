"""The benchmark store whose claims differ: every text is new, the first pass is the data as
given, later passes change the people, places and numbers (bench/distinct_store.py)."""

from bench.distinct_store import ROTATION, distinct_texts

SETS = {
    "locomo": [
        "Caroline went to the support group on 7 May 2023.",
        "Melanie painted a sunrise in Lisbon.",
        "Caroline likes hiking.",
        "Melanie ran a charity race.",
    ],
    "memdaily": ["我的上司今年33岁。", "金融科技精英论坛的地点是北京。", "电影节的规模是三千人。"],
    "en": ["Bart danced at the Christmas party.", "Bart won first place in the 100 meters."],
    "zh": ["Bart在圣诞节晚会上跳舞。"],
}


def test_no_two_texts_alike_over_many_passes() -> None:
    texts = list(distinct_texts(2_000, SETS))
    assert len(texts) == 2_000
    assert len(set(texts)) == 2_000


def test_first_pass_is_the_data_and_later_passes_vary_it() -> None:
    per_pass = len(ROTATION)
    texts = list(distinct_texts(per_pass * 3, SETS))
    first = texts[:per_pass]
    assert first[0] == SETS["locomo"][0]
    assert first[1] == SETS["memdaily"][0]
    assert first[8] == SETS["en"][0]
    later = texts[per_pass * 2 :]
    assert not any("Caroline" in t or "Melanie" in t for t in later[:8:2])  # people renamed
    english = [t for t in later if "support group" in t]
    assert english and "2023" not in english[0]  # numbers shifted (a year stays a year)
    chinese = [t for t in texts[per_pass:] if "上司" in t]
    assert chinese and not chinese[0].startswith("我")  # the speaker is named
    assert any("北京" not in t and "精英论坛的地点" in t for t in texts[per_pass:])  # cities rotated
