"""English statement forms that describe practice rather than ask for it, for
:mod:`memory_core.capture.statements.statement_en`: narration of past events, failure reports, habits
("we deploy on Tuesdays") and conventions ("tests live under tests/").
"""

from __future__ import annotations

from memory_core.capture.statements.statement_en_kinds import (
    CONVENTION_NOUNS,
    CONVENTION_VERBS,
    DETERMINERS,
    FAILURE_PHRASES,
    FAILURE_PREDICATES,
    GENERIC_SUBJECT_STOP,
    HABIT_ADVERBS,
    NARRATION_ADVERBS,
    NARRATION_SUBJECTS,
    PARTICIPLES,
    PAST_IRREGULAR,
    PAST_TIMES,
    PLACEMENT_PREPS,
    PLACEMENT_VERBS,
    PRACTICE_PASSIVES,
    PRESENT_AUX,
    PROJECT_IS,
    PROJECT_SUBJECT_VERBS,
    STATUS_WORDS,
    WE_SUBJECTS,
)
from memory_core.capture.statements.statement_en_tokens import (
    deictic_word,
    has_phrase,
    starts_with,
)
from memory_core.capture.statements.statement_en_words import (
    PUNCT,
    SCOPE_NOUNS,
    SCOPE_PHRASES,
)
from memory_core.capture.statements.statement_text import Verdict


def narration_form(toks: list[str], pad: str) -> str | None:
    past_time = has_phrase(pad, PAST_TIMES)
    if past_time:
        return f"narration: past event ({past_time!r})"
    if toks[0] in NARRATION_SUBJECTS:
        j = 1
    elif toks[0] in DETERMINERS and len(toks) > 2:
        # "the deploy took …" / "the old parser crashed …"; "our branches are named …" is present.
        j = 2
        if toks[2] not in NARRATION_ADVERBS | PAST_IRREGULAR and not is_past(toks[2:3]):
            if toks[2] in PRESENT_AUX or toks[2].endswith("s"):
                return None
            j = 3
    else:
        return None
    while j < len(toks) and toks[j] in NARRATION_ADVERBS:
        j += 1
    if j >= len(toks):
        return None
    verb = toks[j]
    if verb in PAST_IRREGULAR or is_past([verb]):
        return f"narration: past tense {verb!r}"
    if verb in ("have", "has") and j + 1 < len(toks):
        part = toks[j + 1]
        if part in PARTICIPLES or is_past([part]):
            return f"narration: '{verb} {part}'"
    if verb == "used" and toks[j + 1 : j + 2] == ["to"]:
        return "narration: 'used to'"
    if toks[0] in ("i", "we") and verb in ("am", "are") and j + 1 < len(toks) and toks[j + 1].endswith("ing"):
        return f"narration: ongoing ({verb} {toks[j + 1]})"
    return None


def is_past(toks: list[str]) -> bool:
    if not toks:
        return False
    tok = toks[0]
    return len(tok) > 4 and tok.endswith("ed") and not tok.endswith("eed") and "-" not in tok


def failure_predicate(toks: list[str], pad: str) -> str | None:
    for tok in toks:
        if tok in FAILURE_PREDICATES:
            return tok
    return has_phrase(pad, FAILURE_PHRASES)


def habit_form(toks: list[str]) -> Verdict | None:
    """ "we deploy on Tuesdays", "I always use tabs", "this project uses Poetry"."""
    deictic = deictic_word(toks)
    for subject in WE_SUBJECTS:
        if not starts_with(toks, subject):
            continue
        j = len(subject)
        while j < len(toks) and toks[j] in HABIT_ADVERBS:
            j += 1
        if j < len(toks) and toks[j] in CONVENTION_VERBS:
            if deictic:
                return None, f"observation about the current work: refers to {deictic!r}"
            kind = "preference" if subject == ("i",) else "convention"
            return kind, f"{kind}: '{' '.join(subject)} … {toks[j]}' (habitual present)"
        break
    if toks[0] == "our" and not deictic:
        for j in range(2, min(len(toks), 6)):
            if toks[j] in PUNCT:
                break
            k = j
            while k < len(toks) and toks[k] in HABIT_ADVERBS:
                k += 1
            verbs = CONVENTION_VERBS | {t + "s" for t in CONVENTION_VERBS} if k > j else PROJECT_SUBJECT_VERBS
            if k < len(toks) and toks[k] in verbs:
                return "convention", f"convention: 'our … {' '.join(toks[j : k + 1])}'"
    if (
        len(toks) > 2
        and toks[0] in ("this", "the", "our")
        and toks[1] in SCOPE_NOUNS | {"backend", "frontend", "api", "cli"}
    ):
        j = 2
        while j < len(toks) and toks[j] in ("always", "only", "now", "still", "also", "strictly", "mainly", "mostly"):
            j += 1
        verb = toks[j] if j < len(toks) else ""
        nxt = toks[j + 1] if j + 1 < len(toks) else ""
        if verb in PROJECT_SUBJECT_VERBS or (verb == "is" and nxt in PROJECT_IS) or (verb == "does" and nxt == "not"):
            return "convention", f"convention: '{toks[0]} {toks[1]} {verb}'"
    return None


def convention_form(toks: list[str], pad: str) -> Verdict | None:
    deictic = deictic_word(toks)
    if toks[0] in ("the", "our", "my", "team", "house"):
        for i, tok in enumerate(toks[1:4], 1):
            if tok in CONVENTION_NOUNS and any(t in ("is", "are", ":") for t in toks[i + 1 : i + 4]):
                kind = "preference" if tok.startswith("preference") else "convention"
                return kind, f"{kind}: '{toks[0]} {tok} is …'"
    if toks[0] not in GENERIC_SUBJECT_STOP and not deictic:
        for i, tok in enumerate(toks[1:7], 1):
            if tok in PLACEMENT_VERBS and toks[i + 1 : i + 2] and toks[i + 1] in PLACEMENT_PREPS:
                return "convention", f"convention: placement ('{tok} {toks[i + 1]}')"
            if tok in ("are", "is") and toks[i + 1 : i + 2] and toks[i + 1] in STATUS_WORDS | PRACTICE_PASSIVES:
                return "convention", f"convention: '{tok} {toks[i + 1]}'"
    scope = has_phrase(pad, SCOPE_PHRASES + ("everywhere else", "across the board"))
    if scope and not deictic and toks[0] not in GENERIC_SUBJECT_STOP - {"we"}:
        return "convention", f"convention: scoped statement ({scope!r})"
    return None
