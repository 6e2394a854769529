"""Benchmark stores whose claims differ from each other, built from the development sets of
all three benchmarks (``../shared/eval``: LoCoMo observations, MemDaily messages, MADial
memories in English and Chinese), and the repeated-copies store beside them.

A store of ``size`` claims takes its texts in a fixed rotation of ten: four LoCoMo
observations, four MemDaily messages, one English and one Chinese MADial memory. Each data
set is walked again and again; the first pass keeps the texts as they are (so the sets' own
questions match them), every later pass varies the text itself:

* English: the people (each name the texts begin with becomes another from a list of 160,
  a different one per pass), places (a list of cities, rotated) and numbers (shifted);
* Chinese: the speaker (``我`` becomes a person named per pass: 王芳的上司, 王芳将要参加 …),
  cities (rotated) and numbers (shifted);
* a text the pass left unchanged, or one that came out the same as an earlier one, gets a
  clause naming a place and a project ("(in Lisbon, for the kestrel project)",
  "（在成都，为青松项目）"), the next one until the text is new.

So no two claims share a text: the number of distinct bodies (``bodies`` in the store)
equals the number of claims. Claims sit in projects of 500 (``/work/project-N``), kinds in
turn, clocks spread over four days. ``repeated_texts``/``build_copies`` keep the earlier
store: the 353 LoCoMo observations word for word, one copy per project.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from bench.eval_sets import locomo, madial, memdaily

if TYPE_CHECKING:
    from memory_core.records import Memory

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
KINDS = ("fact", "preference", "decision", "project_state")
PROJECT_CLAIMS = 500
ROTATION = ("locomo", "memdaily", "locomo", "memdaily", "locomo", "memdaily", "locomo", "memdaily", "en", "zh")

_FIRST = (
    "Aaron Abby Adrian Aisha Alan Alice Amara Amir Ana Andre Anika Arjun Astrid Ben Bianca Bruno "
    "Camila Carlos Chen Chloe Clara Colin Dana Daniel Dario Dev Diana Diego Dmitri Elena Eli Emil "
    "Emma Erik Eva Farah Felix Fiona Gabe Grace Hana Hector Helga Hugo Ian Ines Irene Isaac Ivan "
    "Jada Jamal Jana Jasper Javier Jin Joao Jonas Julia Kai Karim Kate Keiko Kenji Kira Lars Laura "
    "Leo Lena Liam Lila Luca Lucia Luis Maya Marco Maria Mateo Mei Mia Milan Mina Nadia Nate Nia "
    "Nico Nina Noah Nora Olga Omar Oscar Owen Paula Pedro Petra Priya Quinn Rafael Rana Ravi Rosa "
    "Ruben Ruth Sam Sara Sean Selma Seo Simon Sofia Sven Tara Teo Theo Tomas Uma Vera Victor Vik "
    "Wanda Wei Will Xena Yara Yuki Yusuf Zane Zara Zoe Abel Bea Cyrus Dina Ezra Flora Gil Hazel "
    "Iris Joel Kofi Lina Malik Noor Otto Pia Rhea Saul Tess Ugo Vito Wren Yael Zeno Ada Boris"
).split()
_CITIES = (
    "Lisbon Oslo Denver Austin Kyoto Lagos Lima Porto Dublin Seattle Boston Chicago Toronto Vienna "
    "Prague Madrid Milan Munich Zurich Nairobi Cairo Dubai Mumbai Delhi Seoul Osaka Sydney Perth "
    "Auckland Portland Phoenix Atlanta Miami Houston Dallas Tampa Helsinki Krakow Riga Tallinn"
).split()
_PROJECTS = (
    "kestrel atlas juniper quartz harbor falcon willow cobalt meridian orchid beacon summit lantern "
    "granite cedar tundra nimbus aurora pioneer ember delta sierra compass maple"
).split()
_ZH_SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕"
_ZH_GIVEN = (
    "芳",
    "强",
    "敏",
    "静",
    "磊",
    "洋",
    "艳",
    "勇",
    "军",
    "杰",
    "娟",
    "涛",
    "明",
    "超",
    "秀英",
    "霞",
    "平",
    "刚",
)
_ZH_CITIES = (
    "北京 上海 广州 深圳 杭州 成都 南京 武汉 西安 重庆 天津 苏州 长沙 郑州 青岛 沈阳 宁波 厦门 昆明 "
    "大连 合肥 福州 济南 哈尔滨 贵阳 南宁 兰州 太原"
).split()
_ZH_PROJECTS = "青松 星河 云帆 磐石 远航 晨曦 飞鸿 明镜 长风 锦绣 清泉 春雷".split()
_NUMBER = re.compile(r"\d+")
_EN_CITY = re.compile(r"\b(" + "|".join(_CITIES) + r")\b")
_ZH_CITY = re.compile("|".join(sorted(_ZH_CITIES, key=len, reverse=True)))
_NOT_NAMES = {"The", "He", "She", "They", "It", "His", "Her", "Their", "A", "An", "In", "On", "After", "When"}


def base_texts(eval_dir: Path = EVAL) -> dict[str, list[str]]:
    """Each data set's claim texts, each text once, in the order the set gives them."""
    sets = {
        "locomo": [c.content for conv in locomo(eval_dir) for c in conv.claims],
        "memdaily": [c.content for conv in memdaily(eval_dir) for c in conv.claims],
        "en": [c.content for c in madial(eval_dir, "en").claims],
        "zh": [c.content for c in madial(eval_dir, "ch").claims],
    }
    return {name: list(dict.fromkeys(t for t in texts if t.strip())) for name, texts in sets.items()}


def questions(eval_dir: Path = EVAL) -> list[str]:
    """The sets' questions taken in turn (LoCoMo categories 1-4, MemDaily, MADial English and
    Chinese: the last user turn before the test turn), so any prefix mixes them."""
    sets = [
        [q.texts[-1] for conv in locomo(eval_dir) for q in conv.questions if "LoCoMo categories 1-4" in q.splits],
        [q.texts[-1] for conv in memdaily(eval_dir) for q in conv.questions],
        [q.texts[-1] for q in madial(eval_dir, "en").questions],
        [q.texts[-1] for q in madial(eval_dir, "ch").questions],
    ]
    out: list[str] = []
    for i in range(max(len(s) for s in sets)):
        out.extend(s[i] for s in sets if i < len(s))
    return out


def _names(texts: list[str]) -> list[str]:
    """The capitalized first words of two or more English texts: the people they are about."""
    counts: dict[str, int] = {}
    for text in texts:
        first = text.split(" ", 1)[0].strip(",.'’s")
        if first[:1].isupper() and first.isalpha() and first not in _NOT_NAMES:
            counts[first] = counts.get(first, 0) + 1
    return sorted(name for name, n in counts.items() if n >= 2)


def _shift_numbers(text: str, shift: int) -> str:
    def one(match: re.Match[str]) -> str:
        value = int(match.group())
        if 1900 <= value <= 2100:  # a year stays a plausible year
            return str(1990 + (value - 1990 + shift) % 40)
        return str(value + shift)

    return _NUMBER.sub(one, text)


class Varier:
    """Makes the ``k``-th text of each data set: pass ``k // len(set)`` of its ``k % len(set)``-th text."""

    def __init__(self, sets: dict[str, list[str]]) -> None:
        self.sets = sets
        names = _names(sets["locomo"] + sets["en"])
        self.name_pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
        self.name_index = {name: i for i, name in enumerate(names)}
        self.seen: set[str] = set()

    def _people(self, text: str, v: int) -> str:
        if self.name_pattern is None:
            return text
        return self.name_pattern.sub(lambda m: _FIRST[(self.name_index[m.group()] * 13 + v * 7) % len(_FIRST)], text)

    def _english(self, text: str, v: int) -> str:
        text = _EN_CITY.sub(lambda m: _CITIES[(_CITIES.index(m.group()) + v) % len(_CITIES)], text)
        return _shift_numbers(self._people(text, v), v)

    def _chinese(self, text: str, v: int) -> str:
        person = _ZH_SURNAMES[v % len(_ZH_SURNAMES)] + _ZH_GIVEN[(v // len(_ZH_SURNAMES) + v) % len(_ZH_GIVEN)]
        text = text.replace("我", person)
        text = _ZH_CITY.sub(lambda m: _ZH_CITIES[(_ZH_CITIES.index(m.group()) + v) % len(_ZH_CITIES)], text)
        return self._people(_shift_numbers(text, v), v)  # MADial's Chinese memories name people in Latin letters

    def text(self, name: str, k: int) -> str:
        texts = self.sets[name]
        base, v = texts[k % len(texts)], k // len(texts)
        chinese = name in ("memdaily", "zh")
        text = base if v == 0 else (self._chinese(base, v) if chinese else self._english(base, v))
        j = 0
        while text in self.seen or (v and text == base):
            stem = base if v == 0 else text
            n = v + j
            if chinese:
                clause = (
                    f"（在{_ZH_CITIES[n % len(_ZH_CITIES)]}，为{_ZH_PROJECTS[(n // 3 + j) % len(_ZH_PROJECTS)]}项目）"
                )
                text = stem.rstrip("。") + clause + ("" if j < 8 else f"第{n}次")
            else:
                clause = f" (in {_CITIES[n % len(_CITIES)]}, for the {_PROJECTS[(n // 3 + j) % len(_PROJECTS)]} project"
                text = stem.rstrip(".") + clause + (")" if j < 8 else f", note {n})") + "."
            j += 1
        self.seen.add(text)
        return text


def distinct_texts(size: int, sets: dict[str, list[str]] | None = None) -> Iterator[str]:
    """``size`` texts, no two alike, in the rotation of the module docstring."""
    varier = Varier(sets or base_texts())
    counters = dict.fromkeys(ROTATION, 0)
    for n in range(size):
        name = ROTATION[n % len(ROTATION)]
        yield varier.text(name, counters[name])
        counters[name] += 1


def repeated_texts(size: int) -> Iterator[tuple[str, str]]:
    """The copies store: (origin, text), LoCoMo's observations again and again, one project a pass."""
    texts = base_texts()["locomo"] if (EVAL / "locomo-dev.json").exists() else []
    if not texts:
        raise SystemExit(f"the copies store needs {EVAL / 'locomo-dev.json'}")
    for n in range(size):
        yield f"/work/project-{n // len(texts)}", texts[n % len(texts)]


def summary_claim(origin: str, kind: str, text: str, at: float, source: str) -> Memory:
    """An active claim as a summary's model pass would have stored it at ``at``."""
    from memory_core.records import Evidence, new_memory

    evidence = Evidence(basis="summary", method="model", source_id=source, at=at)
    return new_memory(origin=origin, kind=kind, content=text, source_id=source, evidence=evidence, now=at)


def _write(home: Path, claims: Iterator[tuple[str, str]], now: float) -> None:
    """Every (origin, text) as an active summary claim, 2,000 to a transaction."""
    from memory_core.store.engines.database import Store
    from memory_core.store.tables.memories import put_memory

    store = Store.open(home)
    try:
        pending = list(islice(claims, 2_000))
        n = 0
        while pending:
            with store.transaction() as conn:
                for origin, text in pending:
                    at = now - (n % 97) * 3_600
                    put_memory(conn, summary_claim(origin, KINDS[n % 4], text, at, f"{n:024x}"))
                    n += 1
            pending = list(islice(claims, 2_000))
    finally:
        store.close()


def build_distinct(home: Path, size: int, now: float) -> None:
    pairs = ((f"/work/project-{n // PROJECT_CLAIMS}", t) for n, t in enumerate(distinct_texts(size)))
    _write(home, pairs, now)


def build_copies(home: Path, size: int, now: float) -> None:
    _write(home, repeated_texts(size), now)


BUILDERS = {"distinct": build_distinct, "copies": build_copies}


def counts(home: Path) -> dict[str, int]:
    """Claims, distinct contents and bodies (distinct indexed contents) of a built store."""
    import sqlite3

    conn = sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True)
    try:
        claims, contents = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content_hash) FROM index_docs").fetchone()
        (bodies,) = conn.execute("SELECT COUNT(*) FROM bodies").fetchone()
    finally:
        conn.close()
    return {"claims": claims, "distinct_contents": contents, "bodies": bodies}


def built_home(cache: Path, kind: str, size: int) -> tuple[Path, float, float]:
    """A built store of ``kind`` and ``size`` under ``cache`` (built once, keyed by the index
    and schema versions); returns it, the build seconds (0 when cached) and its build time
    (claims are aged against it)."""
    from memory_core.store.schema.index_version import INDEX_VERSION
    from memory_core.store.schema.migrations import SCHEMA_VERSION

    home = cache / f"{kind}-{size}-v{INDEX_VERSION}-s{SCHEMA_VERSION}"
    meta = home / "bench.json"
    if (home / "memory.db").exists() and meta.exists():
        return home, 0.0, float(json.loads(meta.read_text())["now"])
    shutil.rmtree(home, ignore_errors=True)
    now = time.time()
    started = time.perf_counter()
    BUILDERS[kind](home, size, now)
    seconds = time.perf_counter() - started
    meta.write_text(json.dumps({"now": now, "build_s": round(seconds, 1), **counts(home)}))
    return home, seconds, now
