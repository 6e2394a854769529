"""Features of a text for the recall index and for queries.

One scanner serves both sides so that they always agree:

* English words, lowercased, filler dropped, Porter-stemmed when purely alphabetic;
  hyphenated compounds and words with digits stay whole.
* Numbers as written (``5432``, ``3.14``).
* Literals: paths, URLs, filenames and ``snake_case`` identifiers, kept exactly. The words
  inside a path are *not* features, so ``/work/pi-memory-evolution`` never implies the
  topic "memory". In the index a path also yields its ancestor directories (two segments
  or more) and its last segment, so a query naming the directory finds the file.
* Chinese (and other CJK) text: a small dictionary of concept terms and filler is matched
  first (longest first); what remains is cut into character bigrams, a lone character
  becoming a unigram unless it is a function character (``对``, ``还``, ``上`` …) left
  standing alone. Bigrams need no dictionary load, which a per-turn hook cannot afford,
  and scored best on the Chinese evaluation data.
* Concept-map synonyms in either language become one ``~concept`` feature.

In the index, a quoted question (``“...?”``, ``"...?"``, ``「...？」``) is its own field: a
note repeating a user's question is not evidence of its answer.

Bounds: a run of the characters tokens are made of (letters, digits and the punctuation of
paths and URLs) is cut to its first :data:`MAX_TOKEN_CHARS` characters before scanning, so
no token is longer and scanning any text takes time linear in its length (one 60,000-character
"word" is read as its first 256 characters, not searched 60,000 times). Both sides cut the
same way, so they still agree.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from memory_core.text.cjk_words import CALENDAR_UNIT_LONGEST, CALENDAR_UNITS, measure_word_at
from memory_core.text.concepts import CHINESE, CHINESE_ASKING, ENGLISH
from memory_core.text.owners import owned_people
from memory_core.text.stem import stem
from memory_core.text.value_classes import held_values
from memory_core.text.vocabulary import (
    CHINESE_CONJUNCTIONS,
    CHINESE_KEEP_WORDS,
    CHINESE_LONE_FILLER,
    CHINESE_STOP_CHARS,
    CHINESE_STOP_WORDS,
    ENGLISH_CONJUNCTIONS,
    ENGLISH_STOP,
)

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    pass

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_PATH_CHARS = "a-z0-9_.@%+~-"
# The longest token the scanner reads: longer runs of token characters keep their head.
MAX_TOKEN_CHARS = 256
# Every character any token below can hold (normalized text is lowercase).
_RUN_CHAR = "[a-z0-9._~:/?#@!$&*+,;=%'-]"
_LONG_RUN = re.compile(rf"(?<!{_RUN_CHAR}){_RUN_CHAR}{{{MAX_TOKEN_CHARS + 1},}}+")
_TOKEN = re.compile(
    r"(?P<url>[a-z][a-z0-9+.-]*://[a-z0-9._~:/?#@!$&*+,;=%-]+)"
    rf"|(?P<path>(?<![a-z0-9_.@%+~/-])(?:~|\.{{1,2}})?/[{_PATH_CHARS}]+(?:/[{_PATH_CHARS}]+)*/?"
    rf"|(?<![a-z0-9_.@%+~/-])[{_PATH_CHARS}]+(?:/[{_PATH_CHARS}]+)+/?)"
    # A name with a letter, dotted parts and an extension; "[0-9_-]*[a-z]" finds its first
    # letter without trying every split of a long name (which made long words quadratic).
    rf"|(?P<file>(?<![a-z0-9_./-])[0-9_-]*[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*\.[a-z][a-z0-9]{{0,7}}"
    rf"(?![a-z0-9_/]))"
    r"|(?P<ident>(?<![a-z0-9_])_*[a-z][a-z0-9]*(?:_+[a-z0-9]+)+_*(?![a-z0-9_]))"
    r"|(?P<word>[a-z0-9]+(?:'[a-z]+)?(?:\.[0-9]+)*(?:-[a-z0-9]+)*)"
    rf"|(?P<cjk>[{_CJK_CLASS}]+)"
)
_QUOTED_QUESTION = re.compile(
    r"“[^“”]{1,600}?\?\s*”|\"[^\"\n]{1,600}?\?\s*\"|「[^「」]{1,600}?\?\s*」|『[^『』]{1,600}?\?\s*』"
)
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*")
# A quantity with its unit (165cm, 5kg, 10ms): a value, not the name of a subject.
_QUANTITY = re.compile(r"[0-9]+(?:\.[0-9]+)*[a-z]{1,3}")
# A quantity whose letters are a unit of length, weight, volume, time or size.
_MEASURED = re.compile(r"([0-9]+(?:\.[0-9]+)?)(?:mm|cm|km|m|kg|mg|g|lbs?|ml|l|ft|min|hrs?|h|ms|s|kb|mb|gb|tb)")
_TRAILING = ".,;:!?)]}'\""
_NOT_FILENAMES = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "u.s"})
# What a dictionary hit in Chinese text means: filler (None), a word to keep whole (""),
# a conjunction ("&"), or a concept feature ("~name"). Where no word of it starts, a measure
# word after a numeral or a demonstrative (一台, 那家: :mod:`memory_core.text.cjk_words`) is
# filler.
_KEEP, _CONJUNCTION = "", "&"
_CJK_DICTIONARY: dict[str, str | None] = {
    **{w: None for w in CHINESE_STOP_WORDS},
    **{w: _KEEP for w in CHINESE_KEEP_WORDS},
    **{w: _CONJUNCTION for w in CHINESE_CONJUNCTIONS if len(w) > 1},
    **CHINESE,
}
# The query side also reads the phrases that ask for a detail without naming it.
_CJK_QUERY_DICTIONARY: dict[str, str | None] = {**_CJK_DICTIONARY, **CHINESE_ASKING}
_CJK_LONGEST = max(len(w) for w in _CJK_QUERY_DICTIONARY)

WORD, LITERAL, NUMBER, CONCEPT, CJK = "word", "literal", "number", "concept", "cjk"
# The prefix of the index's mark of a name written as another person's owner (no word, path
# or concept begins with it).
OWNER_MARK = "^"
# A query-only marker unit: the words on either side are alternatives.
MARKER = [(_CONJUNCTION, "conjunction")]


def normalize(text: str) -> str:
    """NFKC (full-width forms become ASCII), lowercase, one apostrophe form."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def _path_is_literal(path: str) -> bool:
    if path.startswith(("/", "~/", "./", "../")):
        return path.strip("/") != ""
    segments = [s for s in path.split("/") if s]
    return len(segments) >= 3 or any("." in s or "_" in s for s in segments)


def _path_features(path: str, *, expand: bool) -> list[tuple[str, str]]:
    path = path.rstrip("/") or path
    out = [(path, LITERAL)]
    if expand:
        segments = path.split("/")
        # Ancestors with at least two named segments: "/work/app/src/x.py" also indexes
        # "/work/app/src" and "/work/app", never bare "/work".
        for end in range(len(segments) - 1, 0, -1):
            ancestor = "/".join(segments[:end])
            if len([s for s in ancestor.split("/") if s and s not in ("~", ".", "..")]) >= 2:
                out.append((ancestor, LITERAL))
        base = segments[-1]
        if base and base not in (".", "..", "~"):
            out.append((base, LITERAL))
    return out


MIN_SHIP_BASE = 5


def _word_feature(word: str) -> tuple[str, str] | None:
    if word.endswith("'s"):
        word = word[:-2]
    if not word or word in ENGLISH_STOP:
        return None
    concept = ENGLISH.get(word)
    if concept is not None:
        return concept, CONCEPT
    if _NUMBER.fullmatch(word) or _QUANTITY.fullmatch(word):
        return word, NUMBER
    if "'" in word:
        word = word.replace("'", "")
        if word in ENGLISH_STOP:
            return None
    if word.endswith("ship") and len(word) >= MIN_SHIP_BASE + 4:
        # The state of being what the base names is the base's business: a member's
        # membership, a partner's partnership (not hardship, worship, flagship: short bases).
        word = word[:-4]
    return stem(word), WORD


def _cjk_pieces(run: str, *, query: bool) -> list[list[tuple[str, str]]]:
    """Split a CJK run into units: dictionary concepts, and bigrams of what remains."""
    units: list[list[tuple[str, str]]] = []
    segment: list[str] = []
    dictionary = _CJK_QUERY_DICTIONARY if query else _CJK_DICTIONARY

    def flush() -> None:
        if len(segment) == 1:
            if segment[0] not in CHINESE_LONE_FILLER:
                units.append([(segment[0], CJK)])
        elif segment:
            text = "".join(segment)
            units.append([(text[i : i + 2], CJK) for i in range(len(text) - 1)])
        segment.clear()

    i, n = 0, len(run)
    while i < n:
        # Down to single characters: a one-character concept form such as 岁 ("years old").
        for length in range(min(_CJK_LONGEST, n - i), 0, -1):
            piece = run[i : i + length]
            if piece in dictionary:
                meaning = dictionary[piece]
                if meaning == _KEEP:
                    segment.extend(piece)
                else:
                    flush()
                    if meaning == _CONJUNCTION:
                        if query:
                            units.append(MARKER)
                    elif meaning is not None:
                        units.append([(meaning, CONCEPT)])
                i += length
                break
        else:
            measure = measure_word_at(run, i)
            if measure:
                flush()
                i += measure
                continue
            ch = run[i]
            if ch in CHINESE_STOP_CHARS:
                flush()
                if query and ch in CHINESE_CONJUNCTIONS:
                    units.append(MARKER)
            else:
                segment.append(ch)
            i += 1
    flush()
    return units


def _calendar_unit(text: str) -> str | None:
    """The calendar or clock unit ``text`` opens with (longest first), if any."""
    for length in range(min(CALENDAR_UNIT_LONGEST, len(text)), 0, -1):
        if text[:length] in CALENDAR_UNITS:
            return text[:length]
    return None


def bound_tokens(text: str) -> str:
    """``text`` with every run of token characters cut to :data:`MAX_TOKEN_CHARS` (its head)."""
    return _LONG_RUN.sub(lambda m: m.group()[:MAX_TOKEN_CHARS], text)


def split_units(text: str, *, expand: bool) -> list[list[tuple[str, str]]]:
    """Feature units of already-normalized text, in reading order.

    ``expand`` is the index side (paths also yield ancestors); the query side instead
    keeps conjunction markers.
    """
    units: list[list[tuple[str, str]]] = []
    bounded = bound_tokens(text)
    for match in _TOKEN.finditer(bounded):
        group = match.lastgroup
        token = match.group()
        if group == "cjk":
            start = match.start()
            calendar = _calendar_unit(token) if start and bounded[start - 1].isdigit() else None
            if calendar is not None:
                # A date's or a clock's unit after a number written in digits (2021年, 3月5号,
                # 7点) is a word of its own, and so is what follows it ("2021年买的": 买).
                units.append([(CALENDAR_UNITS[calendar], CJK)])
                token = token[len(calendar) :]
                if not token:
                    continue
            units.extend(_cjk_pieces(token, query=not expand))
        elif group == "url":
            url = token.rstrip(_TRAILING)
            unit = [(url, LITERAL)]
            host = url.split("://", 1)[1].split("/", 1)[0]
            if expand and host:
                unit.append((host, LITERAL))
            units.append(unit)
        elif group == "path":
            path = token.rstrip(".,;:!?)]}'\"")
            if _path_is_literal(path):
                units.append(_path_features(path, expand=expand))
            else:
                units.extend(split_units(path.replace("/", " "), expand=expand))
        elif group == "file":
            if token in _NOT_FILENAMES:
                continue
            if token.split(".")[0] in ("", "-"):
                units.extend(split_units(token.replace(".", " "), expand=expand))
            else:
                units.append([(token, LITERAL)])
        elif group == "ident":
            units.append([(token.strip("_") or token, LITERAL)])
        elif not expand and token in ENGLISH_CONJUNCTIONS:
            units.append(MARKER)
        else:
            end = match.end()
            if token.isdigit() and end < len(bounded) and _calendar_unit(bounded[end : end + CALENDAR_UNIT_LONGEST]):
                # The number of a date or a clock reads the same with or without its
                # leading zero (09月04日 is 9月4号).
                token = token.lstrip("0") or "0"
            feature = _word_feature(token)
            if feature is not None:
                number = _MEASURED.fullmatch(token)
                # A measure with its unit written in letters is also its number ("172cm"
                # is 172, as "172厘米" is): one unit, either form matching.
                units.append([feature, (number.group(1), NUMBER)] if number else [feature])
    return units


def _counts(text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for unit in split_units(text, expand=True):
        for feature, _kind in unit:
            counts[feature] += 1
    return counts


def split_quoted_questions(text: str) -> tuple[str, str]:
    """(text without quoted questions, the quoted questions), both normalized."""
    normalized = normalize(text)
    quoted = _QUOTED_QUESTION.findall(normalized)
    if not quoted:
        return normalized, ""
    return _QUOTED_QUESTION.sub(" ", normalized), " ".join(quoted)


def index_fields(content: str, search_terms: list[str] | tuple[str, ...] = ()) -> dict[str, Counter[str]]:
    """Feature counts of a claim per index field: ``body``, ``quote`` and ``alias``."""
    body, quoted = split_quoted_questions(content)
    fields = {"body": _with_values(_counts(body), body, content)}
    if quoted:
        fields["quote"] = _counts(quoted)
    if search_terms:
        written = " ".join(search_terms)
        aliases = normalize(written)
        fields["alias"] = _with_values(_counts(aliases), aliases, written)
    return {name: counts for name, counts in fields.items() if counts}


def _with_values(counts: Counter[str], text: str, raw: str) -> Counter[str]:
    """``counts`` and, once each, the value classes ``text`` holds a value of ("蓝色", "$40":
    :mod:`memory_core.text.value_classes`). Only the index holds them: what a claim's words
    are (:func:`features`, which capture and consolidation compare) does not change."""
    for value in held_values(text, raw):
        counts[value] = 1
    # Each time a name is written as the owner of another person ("王建国的妻子", "Tom's wife"),
    # its features once more marked so (OWNER_MARK): the index can tell a claim naming
    # somebody only as such an owner (memory_core.recall.persons).
    for name, _owned in owned_people(text):
        for unit in split_units(name, expand=False):
            for feature, kind in unit:
                if kind in (CJK, WORD):
                    counts[OWNER_MARK + feature] += 1
    return counts


def features(text: str) -> Counter[str]:
    """Feature counts of any text, as the index sees a claim body (all fields together)."""
    return _counts(normalize(text))


def origin_features(origin: str) -> tuple[str, ...]:
    """Features an origin identifier offers: its path forms and its raw last segment.

    Concept words are excluded on purpose: an origin such as ``/work/memory`` is a
    location, not evidence about the topic "memory".
    """
    text = normalize(origin).strip()
    if not text:
        return ()
    if "/" not in text:
        return (text,)
    return tuple(dict.fromkeys(f for f, _ in _path_features(text, expand=True)))
