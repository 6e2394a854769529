"""English statement forms for :mod:`memory_core.capture.statements.statement_en`.

Each rule reads one form of a sentence that got past the rejections (recall, question,
quote, reported speech) and returns a ``(kind, reason)`` verdict, or ``None`` when the form
does not apply: preferences ("I prefer …"), decisions ("we decided …"), conditionals
("whenever you …, …") and directives (imperatives and modal sentences); narration, failure
reports, habits and conventions are in :mod:`memory_core.capture.statements.statement_en_practice`.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_en_kinds import (
    ALWAYS_NOT_VERB,
    BASE_LIKE_PAST,
    CANNOT_OBSERVE,
    DECISION_PHRASES,
    DECISION_SUBJECT_SKIP,
    DECISION_VERBS,
    DETERMINERS,
    EPISTEMIC_AFTER,
    EPISTEMIC_BE,
    FAILURE_PREDICATES,
    GENERIC_MODALS,
    GENERIC_SUBJECT_STOP,
    KEEP_ONE_OFF,
    LET_DECISIONS,
    MODAL_ADVERBS,
    MODAL_SUBJECTS,
    MODALS,
    NEG_CHATTER,
    NOT_PROHIBITED,
    PARTICIPLES,
    PAST_IRREGULAR,
    POLICY_VERBS,
    PREF_ADVERBS,
    PREF_SUBJECTS,
    PREF_VERBS,
    REACTION_OBJECTS,
    RULE_TASK_VERBS,
    SPECIFIC_AFTER_QUANTIFIER,
    STYLE_NEXT,
    STYLE_VERBS,
    TASK_VERBS,
)
from memory_core.capture.statements.statement_en_practice import failure_predicate, is_past
from memory_core.capture.statements.statement_en_tokens import (
    deictic_word,
    has_phrase,
    standing_marker,
    starts_with,
)
from memory_core.capture.statements.statement_en_words import (
    MOVING_TO,
    PUNCT,
    SCOPE_NOUNS,
)
from memory_core.capture.statements.statement_text import Verdict


def preference_form(toks: list[str], pad: str) -> Verdict | None:
    for i, tok in enumerate(toks[:12]):
        if tok not in PREF_SUBJECTS or (i and toks[i - 1] not in PUNCT and toks[i - 1] not in ("but", "and", "so")):
            continue
        j = i + 1
        while j < len(toks) and toks[j] in PREF_ADVERBS:
            j += 1
        negated = False
        if toks[j : j + 1] == ["not"]:
            negated, j = True, j + 1
        elif toks[j : j + 3] == ["can", "not", "stand"]:
            negated, j = True, j + 2
        if j >= len(toks) or toks[j] not in PREF_VERBS | {"stand"}:
            continue
        verb, obj = toks[j], toks[j + 1 :]
        if verb in ("prefer", "rather") and obj[:1] == ["that"]:
            obj = obj[1:]
        said = f"{tok} {'not ' if negated else ''}{verb}"
        if not obj or obj[0] in REACTION_OBJECTS or obj[0] in PUNCT:
            return None, f"reaction: {said!r} about the current work, not a standing preference"
        if verb in ("want", "like", "expect") and (obj[:2] == ["you", "to"] or obj[0] == "to"):
            rest = obj[2:] if obj[0] == "you" else obj[1:]
            verdict = directive_form(rest, " " + " ".join(rest) + " ", None) if rest else None
            if verdict is not None and verdict[0] is None:
                return None, verdict[1]
        deictic = deictic_word(obj)
        if deictic and verb in ("want", "like", "expect", "love"):
            return None, f"one-off request: {said!r} refers to {deictic!r}"
        return "preference", f"preference: {said!r}"
    if pad.startswith((" my preference ", " my personal preference ")):
        return "preference", "preference: 'my preference'"
    return None


def decision_form(toks: list[str], pad: str) -> Verdict | None:
    if starts_with(toks, ("let", "us")) and len(toks) > 2:
        verb = toks[2]
        if verb == "go" and toks[3:4] != ["with"]:
            return None, "one-off suggestion: 'let's go …'"
        if verb in LET_DECISIONS:
            deictic = deictic_word(toks[3:])
            if deictic:
                return None, f"one-off suggestion: 'let's {verb}' refers to {deictic!r}"
            return "decision", f"decision: 'let's {verb}'"
        return None, f"one-off suggestion: 'let's {verb}'"
    if pad.startswith(" going with "):
        return "decision", "decision: 'going with'"
    for i, tok in enumerate(toks[:10]):
        if tok not in ("we", "i", "team") or (
            i and toks[i - 1] not in PUNCT and toks[i - 1] not in ("but", "and", "so", "the", "our")
        ):
            continue
        j = i + 1
        while j < len(toks) and toks[j] in DECISION_SUBJECT_SKIP:
            j += 1
        if j < len(toks) and toks[j] in DECISION_VERBS:
            if toks[j] == "decided" and toks[j + 1 : j + 3] in (["to", "take"], ["to", "try"]):
                return None
            return "decision", f"decision: '{tok} {toks[j]}'"
        after = " " + " ".join(toks[j : j + 5]) + " "
        phrase = has_phrase(after, DECISION_PHRASES)
        moving = MOVING_TO.match(after)
        if moving and not phrase:
            phrase = moving.group(0).strip()
        if phrase and after.startswith(f" {phrase} "):
            deictic = deictic_word(toks[j:])
            if deictic:
                return None, f"one-off plan: '{tok} {phrase}' refers to {deictic!r}"
            return "decision", f"decision: '{tok} {phrase}'"
    return None


def conditional_form(toks: list[str], pad: str) -> Verdict | None:
    """ "Whenever you change the schema, bump …" / "If a test is flaky, mark it …"."""
    first = toks[0]
    generic_start = (
        first in ("whenever", "anytime")
        or starts_with(toks, ("every", "time"))
        or starts_with(toks, ("each", "time"))
        or starts_with(toks, ("any", "time"))
    )
    if not (generic_start or first in ("if", "when", "before", "after", "once", "while")) or "," not in toks:
        return None
    comma = toks.index(",")
    clause, main = toks[1:comma], toks[comma + 1 :]
    if not clause or not main:
        return None
    generic = (
        generic_start
        or any(t in ("a", "an", "any", "every", "each", "new") for t in clause)
        or (first in ("before", "after", "when", "while") and clause[0].endswith("ing"))
    )
    main_pad = " " + " ".join(main) + " "
    if generic:
        verdict = directive_form(main, main_pad, standing=" ".join(toks[:2]), ignore_deictic=True)
        if verdict is not None and verdict[0] is not None:
            return verdict[0], f"standing rule ('{first} …'): {verdict[1]}"
        return None
    verdict = directive_form(main, main_pad, None, ignore_deictic=True)
    if verdict is not None and verdict[0] is None:
        return verdict
    if verdict is not None:
        return verdict[0], f"conditional rule ('{first} …'): {verdict[1]}"
    return None


def directive_form(toks: list[str], pad: str, standing: str | None, ignore_deictic: bool = False) -> Verdict | None:
    """Imperatives and modal sentences: standing rules or one-off task requests."""
    if not toks:
        return None
    deictic = None if ignore_deictic else deictic_word(toks)
    marker = standing or standing_marker(pad)
    first = toks[0]
    # Prohibitions: "don't …", "never …", "stop …", "no emojis in …".
    negation = None
    if starts_with(toks, ("do", "not")):
        negation, rest = "don't", toks[2:]
    elif first == "never" and len(toks) > 1:
        negation, rest = "never", toks[1:]
    elif first == "stop" and len(toks) > 1 and toks[1].endswith("ing"):
        negation, rest = "stop", toks[1:]
    if negation:
        if rest and rest[0] == "ever":
            rest = rest[1:]
        if rest and rest[0] in NEG_CHATTER:
            return None, f"chatter: '{negation} {rest[0]}'"
        if rest and (rest[0] in (PARTICIPLES | PAST_IRREGULAR) - BASE_LIKE_PAST or is_past(rest[:1])):
            return None, f"narration: '{negation} {rest[0]}'"
        if deictic and not marker:
            return None, f"one-off instruction: '{negation} …' refers to {deictic!r}"
        return "requirement", f"prohibition: '{negation} …'"
    if (
        first == "no"
        and len(toks) > 2
        and toks[1] not in PUNCT
        and toks[1] not in NOT_PROHIBITED
        and toks[1:3] != ["more", "questions"]
        and not toks[1].endswith("ed")
    ):
        return "requirement", f"prohibition: 'no {toks[1]} …'"
    if first == "only" and len(toks) > 2 and toks[1] not in ("the", "one", "a", "if", "when", "because"):
        if deictic or failure_predicate(toks, pad) or is_past(toks[1:2]) or toks[1] in PAST_IRREGULAR:
            return None
        return "requirement", "restriction: 'only …'"
    if first == "always" and len(toks) > 1:
        if toks[1] in ALWAYS_NOT_VERB:
            return None
        if toks[1] in FAILURE_PREDICATES:
            return None, f"failure complaint: 'always {toks[1]}'"
        return "requirement", "standing instruction: 'always …'"
    if starts_with(toks, ("make", "sure")) or starts_with(toks, ("be", "sure")) or first == "ensure":
        marker = marker or quantifier(toks)
        if marker:
            return "requirement", f"standing instruction: 'make sure …' with {marker!r}"
        return None, "one-off task: 'make sure …' without a standing marker"
    # Imperative verbs, unless the first word is the subject of a modal ("commit messages should …").
    if first not in MODAL_SUBJECTS and any(t in ("should", "must", "shall", "needs") for t in toks[1:3]):
        verdict = generic_modal_form(toks, deictic)
        if verdict is not None:
            return verdict
    verdict = imperative_form(toks, deictic, marker)
    if verdict is not None:
        return verdict
    # "you should never …", "we need to …", "I have to …"
    if first in MODAL_SUBJECTS:
        for modal in MODALS:
            if starts_with(toks[1:], modal):
                rest = toks[1 + len(modal) :]
                negated = modal[-1] == "never"
                while rest and rest[0] in MODAL_ADVERBS:
                    negated = negated or rest[0] in ("never", "not")
                    rest = rest[1:]
                phrase = f"{first} {' '.join(modal)}"
                if negated:
                    return "requirement", f"requirement: '{phrase} not/never …'"
                if not rest:
                    return None
                sub = imperative_form(rest, deictic, marker)
                if sub is not None:
                    return sub[0], f"{phrase} …: {sub[1]}"
                return None
    return generic_modal_form(toks, deictic)


def imperative_form(toks: list[str], deictic: str | None, marker: str | None) -> Verdict | None:
    verb = toks[0]
    nxt = toks[1] if len(toks) > 1 else ""
    policy = verb in POLICY_VERBS or (verb in STYLE_VERBS and nxt in STYLE_NEXT)
    if verb == "keep" and nxt in KEEP_ONE_OFF:
        policy = False
    if policy:
        if deictic and not marker:
            return None, f"one-off instruction: {verb!r} refers to {deictic!r}"
        kind = "preference" if verb in ("prefer", "favor", "favour") else "requirement"
        return kind, f"standing instruction: policy verb {verb!r}" + (f" with {marker!r}" if marker else "")
    if verb in RULE_TASK_VERBS and not marker:
        marker = quantifier(toks)
    if verb in TASK_VERBS:
        if marker:
            return "requirement", f"standing instruction: {verb!r} with {marker!r}"
        return None, f"one-off task: imperative {verb!r} without a standing marker"
    return None


def quantifier(toks: list[str]) -> str | None:
    """A generic quantifier ("all user-facing strings", "every migration"), not "all the tests"."""
    for i, tok in enumerate(toks[1:], 1):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok in ("all", "every", "each", "any") and nxt and nxt not in SPECIFIC_AFTER_QUANTIFIER:
            return f"{tok} {nxt}"
    return None


def generic_modal_form(toks: list[str], deictic: str | None) -> Verdict | None:
    """ "All public functions need docstrings", "Migrations must be reversible"."""
    if toks[0] in GENERIC_SUBJECT_STOP and not (toks[0] == "this" and toks[1:2] and toks[1] in SCOPE_NOUNS):
        return None
    for m, tok in enumerate(toks[:9]):
        if m == 0 or tok not in GENERIC_MODALS:
            continue
        after = toks[m + 1 : m + 3]
        nxt = after[0] if after else ""
        if tok in ("must", "should", "shall"):
            if nxt in EPISTEMIC_AFTER.get(tok, ()) or (nxt == "be" and after[1:] and after[1] in EPISTEMIC_BE):
                return None
        elif tok in ("needs", "need"):
            if toks[m - 1] in DETERMINERS:
                continue
        elif tok in ("has", "have"):
            if nxt != "to":
                continue
        elif tok == "may":
            if nxt != "not":
                continue
        elif tok == "can":
            if nxt != "not" or (after[1:] and after[1] in CANNOT_OBSERVE):
                continue
        elif tok in ("are", "is"):
            if not (
                after and (after[0] in ("required", "forbidden", "mandatory", "banned") or after == ["not", "allowed"])
            ):
                continue
        if any(t in PUNCT for t in toks[:m]):
            return None
        if deictic:
            return None, f"one-off requirement: refers to {deictic!r}"
        return "requirement", f"requirement: '{' '.join(toks[:m])} {tok} …'"
    return None
