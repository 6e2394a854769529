"""English sentence rules for :mod:`memory_core.capture.statements`.

A sentence is lowercased and split into word tokens (contractions expanded: "don't" ->
"do not"); the rules are word sets and short phrases over those tokens, plus a handful of
short ASCII regular expressions (tokenizer, quotes, gerund frames). :func:`classify` returns
``(kind, reason)``: a kind when the sentence states a standing requirement, preference,
decision or convention (or an explicit "remember that …" fact), else ``None`` with the
reason it was rejected. ``HEADER`` marks a line that introduces a list ("remember this:").
"""

from __future__ import annotations

import re

from memory_core.capture.statement_text import HEADER, TO_ASCII, Verdict, fold

_QUOTED = re.compile(r'"[^"\n]{0,300}"')  # after TO_ASCII folded “…”, 「…」 to "…"
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_'+#./*<>-]*|[,;:?!]")
_DASHES = (("—", ";"), ("–", ";"))  # a dash between clauses works like a semicolon
_GERUND_FRAME = re.compile(r" (?:before|after|when|while) ([a-z]+ing) ")  # "before committing"
_YOU_FRAME = re.compile(r" (?:before|after|when|whenever) you ([a-z]+) ")  # "before you push"
_MOVING_TO = re.compile(r" are (?:moving|switching|migrating)(?: \S+){0,2} to ")  # "are moving everything to"
_QUOTE_TOKEN = "quoted_text"
_PUNCT = frozenset(",;:?!")

_SPECIAL_CONTRACTIONS = {
    "don't": ("do", "not"),
    "won't": ("will", "not"),
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "shan't": ("shall", "not"),
    "let's": ("let", "us"),
    "lets": ("let", "us"),
    "i'm": ("i", "am"),
    "ain't": ("is", "not"),
}
_SUFFIX_CONTRACTIONS = (("'ll", "will"), ("'re", "are"), ("'ve", "have"), ("'m", "am"), ("'d", "would"))
_IS_CONTRACTED = frozenset("it that what there here who he she where how this".split())

# Leading words that carry no meaning for the decision ("ok, …", "btw …").
_FREE_FILLERS = (
    ("by", "the", "way"),
    ("one", "more", "thing"),
    ("one", "last", "thing"),
    ("another", "thing"),
    ("one", "thing"),
    ("oh", "and"),
    ("and", "also"),
    ("that", "said"),
    ("and",),
    ("also",),
    ("but",),
    ("so",),
    ("though",),
    ("plus",),
    ("btw",),
    ("fyi",),
    ("just", "fyi"),
    ("heads", "up"),
    ("ps",),
    ("actually",),
    ("anyway",),
    ("anyways",),
    ("then",),
    ("please",),
    ("pls",),
    ("plz",),
    ("kindly",),
    ("oh",),
)
_PUNCT_FILLERS = (
    ("never", "mind"),
    ("no", "worries"),
    ("sounds", "good"),
    ("looks", "good"),
    ("got", "it"),
    ("makes", "sense"),
    ("thank", "you"),
    ("all", "good"),
    ("ok",),
    ("okay",),
    ("alright",),
    ("sure",),
    ("yes",),
    ("yeah",),
    ("yep",),
    ("yup",),
    ("no",),
    ("nope",),
    ("thanks",),
    ("thx",),
    ("great",),
    ("cool",),
    ("nice",),
    ("perfect",),
    ("good",),
    ("hmm",),
    ("hm",),
    ("hey",),
    ("hi",),
    ("hello",),
    ("well",),
    ("right",),
    ("lol",),
    ("wait",),
    ("now",),
    ("also",),
)
_FILLER_FIRST = frozenset(filler[0] for filler in _FREE_FILLERS + _PUNCT_FILLERS)
_CHATTER = frozenset(
    "ok okay alright sure yes yeah yep yup no nope thanks thank you thx great cool nice perfect good fine lgtm "
    "looks sounds got it makes sense ship go ahead continue wait hmm hm hey hi hello morning night right lol "
    "awesome done agreed correct exactly true indeed exactly wow oops sorry please see i that is this works "
    "worked not sure about the other one".split()
)

_RECALL_PHRASES = (
    "do you remember",
    "did you remember",
    "can you remember",
    "could you remember",
    "do you still remember",
    "do you recall",
    "can you recall",
    "could you recall",
    "remind me",
    "what did i say",
    "what did i tell",
    "what did we decide",
    "what did we agree",
    "what did we say",
    "what did we settle",
    "what did we choose",
    "what did we pick",
    "what did we use",
    "what do you know about",
    "what do you remember",
    "have i told you",
    "have i mentioned",
    "did i tell you",
    "did i mention",
    "did i say",
    "you remember",
)
_RECALL_STARTS = (
    "recall",
    "remember when",
    "remember what",
    "remember how",
    "remember where",
    "remember which",
    "remember the time",
    "remember why",
    "remember who",
)
_RECALL_NOUNS = frozenset(
    "decision convention conventions rule rules preference policy agreement plan naming setup process".split()
)

_QUESTION_STARTS = frozenset(
    "what why how where which who whom whose is are was were am can could would will should shall may might".split()
)
_AUX_QUESTION = frozenset("do does did have has".split())
_PRONOUNS = frozenset("you we i they it this that these those he she there".split())
_HEDGES = ("not sure", "i wonder", "i guess", "wondering", "no idea")

_REPORT_VERBS = frozenset(
    "says said reads mentions mentioned states stated wrote claims claimed suggests suggested "
    "recommends recommended shows showed prints printed outputs".split()
)
_PLURAL_REPORTERS = frozenset("docs logs people they guidelines instructions others folks".split())

_CUES = (  # (tokens, strong); longest first where they share a prefix
    (("quick", "note", "for", "the", "future"), True),
    (("note", "for", "the", "future"), True),
    (("for", "future", "reference"), True),
    (("for", "the", "record"), True),
    (("for", "the", "future"), True),
    (("for", "reference"), True),
    (("keep", "in", "mind"), True),
    (("bear", "in", "mind"), True),
    (("do", "not", "forget"), True),
    (("never", "forget"), True),
    (("make", "a", "note"), True),
    (("remember", "that"), True),
    (("remember", "this"), True),
    (("remember", "to"), True),
    (("remember", ":"), True),
    (("remember", ","), True),
    (("note", "that"), False),
    (("note", ":"), False),
    (("memorize",), True),
    (("memorise",), True),
    (("remember",), False),
)
_CUE_PUNCT = frozenset((":", ",", ";"))

_STANDING_FRAMES = (
    ("from", "now", "on"),
    ("going", "forward"),
    ("moving", "forward"),
    ("from", "here", "on", "out"),
    ("from", "here", "on"),
    ("henceforth",),
    ("in", "the", "future"),
    ("in", "future"),
    ("next", "time"),
    ("by", "default"),
    ("as", "a", "rule"),
    ("in", "general"),
    ("for", "future", "sessions"),
    ("always",),
    ("never",),
)
_SCOPE_NOUNS = frozenset(
    "repo repository project codebase team org company monorepo package service app library "
    "workspace client customer product environment".split()
)
_SCOPE_PHRASES = tuple(
    f"{prep} {det} {noun}"
    for prep in ("in", "for", "across")
    for det in ("this", "our", "the")
    for noun in ("repo", "repository", "project", "codebase", "monorepo", "team", "company")
)
_SCOPE_FRAMES = tuple(tuple(phrase.split()) for phrase in (*_SCOPE_PHRASES, "here"))
_FRAME_FIRST = frozenset(frame[0] for frame in _STANDING_FRAMES + _SCOPE_FRAMES)
_STANDING_PHRASES = (
    "from now on",
    "going forward",
    "moving forward",
    "from here on",
    "henceforth",
    "in the future",
    "in future",
    "next time",
    "every time",
    "each time",
    "any time",
    "anytime",
    "whenever",
    "always",
    "never",
    "by default",
    "as a rule",
    "at all times",
    "no matter what",
    "on every",
    "in every",
    "for every",
    "for each",
    "for all new",
    "for any",
    "before every",
    "before each",
    "before any",
    "after every",
    "after each",
    "after any",
    "without asking",
    "without checking",
)
_EVENT_VERBS = frozenset(
    "commit push merge release deploy open submit ask change start touch run send create make "
    "add delete remove edit write fix".split()
)

_POLICY_VERBS = frozenset(
    "use prefer avoid stick default follow favor favour pin target treat keep stay limit "
    "prefix name indent support require assume spell".split()
)
_STYLE_VERBS = frozenset("answer reply respond speak talk explain write".split())  # policy when followed by a style
_STYLE_NEXT = frozenset(
    "in with using briefly concisely only always never without short shortly tersely like as "
    "docstrings comments tests code commit".split()
)
_KEEP_ONE_OFF = frozenset("going trying working it at up on looking digging this that them me".split())
_TASK_VERBS = frozenset(
    "fix run look check open show explain debug investigate implement add remove delete rename refactor update try "
    "find read review write create make change move commit push deploy build install test revert merge rebase undo "
    "continue go start stop restart clean split combine extract replace convert generate bump upgrade downgrade set "
    "configure enable disable print list search grep help tell give send put store place mark tag document format "
    "lint profile benchmark measure compare copy paste edit modify patch wrap squash describe summarize summarise "
    "draft plan think consider ignore skip drop finish complete close reopen post ask mock call do get take see "
    "have let wait retry rerun rewrite redo reset pull fetch clone migrate seed load save upload download sort "
    "strip trim insert append handle verify validate ensure double-check".split()
)
_RULE_TASK_VERBS = frozenset(
    "write name format document put store place log wrap prefix mark tag handle validate "
    "route send test cover ensure".split()
)
_SPECIFIC_AFTER_QUANTIFIER = frozenset(
    "the these those of my our your them this that time right good".split() + list(_PUNCT)
)
_NOT_PROHIBITED = frozenset(
    "need way idea problem worries luck rush change changes difference one it that this matter clue doubt thanks "
    "error errors exception exceptions bug bugs crash failure failures traceback issue issues problems timeout "
    "timeouts".split()
)  # "no worries", "no idea", "no errors in the log" are not rules
_NEG_CHATTER = frozenset("worry bother mind care panic stress sweat hesitate rush".split())
_ALWAYS_NOT_VERB = frozenset(
    "the a an so nice good fun been same like happens happened true great worth fine there".split()
)

_MODALS = (
    ("should",),
    ("must",),
    ("need", "to"),
    ("have", "to"),
    ("has", "to"),
    ("ought", "to"),
    ("shall",),
    ("are", "required", "to"),
    ("are", "supposed", "to"),
    ("are", "expected", "to"),
    ("will", "always"),
    ("will", "never"),
    ("would", "always"),
    ("would", "never"),
    ("got", "to"),
)
_MODAL_SUBJECTS = frozenset("you we i everyone everybody".split())
_MODAL_ADVERBS = frozenset("always never not only also all really definitely ever just strictly please".split())
_GENERIC_MODALS = frozenset("must should shall needs need has have may can are is".split())
_EPISTEMIC_AFTER = {"must": frozenset(("have",)), "should": frozenset(("work", "have", "pass"))}
_EPISTEMIC_BE = frozenset(
    "a an the some because broken wrong it why from related caused fine ok okay good done "
    "working enough right correct there able".split()
)
_CANNOT_OBSERVE = frozenset("find see tell figure reproduce get open connect load start".split())
_GENERIC_SUBJECT_STOP = frozenset("it this that he she they there i you we what which who".split())

_PREF_SUBJECTS = frozenset(("i", "we"))
_PREF_ADVERBS = frozenset(
    "really strongly generally usually much would do also always personally definitely still kind of just".split()
)
_PREF_VERBS = frozenset("prefer rather like love hate dislike want expect enjoy".split())
_REACTION_OBJECTS = frozenset("it this that them when how what these those".split())

_DECISION_VERBS = frozenset("decided agreed settled chose picked".split())
_DECISION_PHRASES = (
    "are going with",
    "are going to go with",
    "will go with",
    "are switching to",
    "are moving to",
    "are migrating to",
    "are dropping",
    "are standardizing on",
    "are standardising on",
    "will use",
    "will keep",
    "will drop",
    "will stick",
    "will not support",
    "will no longer",
    "will not add",
    "are not supporting",
    "no longer support",
    "went with",
    "are sticking with",
    "will standardize",
    "will switch to",
    "would not support",
)
_LET_DECISIONS = frozenset(
    "use go stick stay keep standardize standardise adopt switch move drop settle pick choose "
    "agree avoid not always never make".split()
)
_DECISION_SUBJECT_SKIP = frozenset("have just finally all already now also both".split())

_PAST_IRREGULAR = frozenset(
    "did was were had got went came saw ran made took found thought said told wrote tried "
    "broke forgot left began knew gave kept meant sent spent built lost felt heard paid "
    "stood understood woke drove fell grew".split()
)
_PARTICIPLES = frozenset(
    "been done seen gone made taken written broken found run got gotten tried had put set left lost".split()
)
_PRESENT_AUX = frozenset("is are am do does will can should must may need needs has have".split())
_BASE_LIKE_PAST = frozenset("run put set cut hit let read come".split())  # same spelling as the imperative
_NARRATION_SUBJECTS = frozenset("i we you he she they it this that someone somebody nobody everyone".split())
_DETERMINERS = frozenset("the my our your this that his her their".split())
_NARRATION_ADVERBS = frozenset(
    "just already also then finally accidentally never literally actually still even only "
    "recently ever first totally".split()
)
_PAST_TIMES = (
    "yesterday",
    "last week",
    "last night",
    "last time",
    "last month",
    "last sprint",
    "last year",
    "last friday",
    "earlier",
    "this morning",
    "ago",
    "just now",
    "the other day",
    "at standup",
)

_FAILURE_PREDICATES = frozenset(
    "crash crashes crashed crashing fail fails failed failing broken breaks broke hang hangs hanging hung freeze "
    "freezes freezing froze frozen flaky flakes segfault segfaults segfaulted panic panics panicked stuck slow "
    "slower wrong mess painful annoying ugh oom throws explodes complaining complains forever".split()
)
_FAILURE_PHRASES = (
    "timing out",
    "times out",
    "timed out",
    "does not work",
    "do not work",
    "not working",
    "will not start",
    "will not build",
    "will not compile",
    "will not run",
    "will not load",
    "blows up",
    "blew up",
    "errors out",
    "is red",
    "goes red",
    "permission denied",
    "never works",
    "never finishes",
    "keeps failing",
)
_FAILURE_NOUNS = frozenset(
    "error errors exception exceptions bug bugs crash failure failures traceback issue issues "
    "problem problems timeout timeouts".split()
)

_WE_SUBJECTS = (
    ("our", "team"),
    ("the", "team"),
    ("my", "team"),
    ("our", "company"),
    ("we", "all"),
    ("we",),
    ("everyone",),
    ("everybody",),
    ("i",),
)
_HABIT_ADVERBS = frozenset(
    "always never usually normally generally typically only mostly also all still do does "
    "not no longer just strictly consistently rarely tend to".split()
)
_CONVENTION_VERBS = _POLICY_VERBS | frozenset(
    "deploy release ship run write squash rebase merge tag version vendor review branch document store log host "
    "build publish commit track freeze cut bump rotate call declare wrap put lint format test code develop migrate "
    "cache generate rely depend structure organize organise split group mirror mock enforce check sign "
    "squash-merge squash-merges keep reviews releases deploys ships runs writes uses".split()
)
_PROJECT_SUBJECT_VERBS = frozenset(
    "uses runs targets requires follows deploys ships supports relies depends prefers avoids builds lives needs".split()
)
_PROJECT_IS = frozenset(
    "built written based deployed hosted licensed managed released tested formatted linted versioned".split()
)
_CONVENTION_NOUNS = frozenset(
    "convention conventions rule rules policy policies standard standards guideline "
    "guidelines norm norms style naming practice preference preferences workflow process "
    "approach".split()
)
_RULE_HEADER_NOUNS = _CONVENTION_NOUNS | frozenset("ground conventions requirements preferences".split())
_PLACEMENT_VERBS = frozenset("go goes live lives belong belongs sit sits stay stays reside resides".split())
_PLACEMENT_PREPS = frozenset("in under into next inside through via at on".split())
_STATUS_WORDS = frozenset(
    "always never only forbidden required mandatory banned preferred deprecated optional allowed".split()
)
_PRACTICE_PASSIVES = frozenset(
    "named stored written kept formatted tagged versioned deployed released reviewed "
    "squashed prefixed organized organised structured indented pinned located returned "
    "handled logged documented tested linted generated vendored".split()
)
_LABELS = {
    "decision": "decision",
    "rule": "requirement",
    "convention": "convention",
    "policy": "requirement",
    "preference": "preference",
    "requirement": "requirement",
    "guideline": "convention",
    "standard": "convention",
}
_DEICTIC_WORDS = frozenset("it them these those".split())
_DEICTIC_THAT_NEXT = frozenset(
    "one file function test thing way approach change bug error part line branch commit "
    "method class module code for again too either please".split()
)
_DEICTIC_PHRASES = (
    "for now",
    "right now",
    "this time",
    "for the moment",
    "at the moment",
    "temporarily",
    "real quick",
    "quickly",
    "you just",
    "i just",
    "we just",
    "the same",
    "the other",
    "the last",
    "the previous",
    "the new",
    "above",
    "below",
    "again",
    "once more",
    "my question",
)
_CLAUSE_BREAK = frozenset((",", ";", ":", "so", "because", "since", "but"))


def classify(sentence: str) -> Verdict:
    """``(kind, reason)`` for one English sentence; see the module docstring."""
    text, quoted = _without_quotes(sentence)
    raw_lower = text.strip().lower()
    toks = _strip_fillers(_tokens(raw_lower))
    words = [t for t in toks if t not in _PUNCT]
    if quoted and len([w for w in words if w != _QUOTE_TOKEN]) < 2:
        return None, "quote: the sentence is quoted text"
    if not words:
        return None, "chatter: no content words"
    if all(w in _CHATTER for w in words):
        return None, "chatter: acknowledgement or small talk"
    if len(words) < 2:
        return None, "too short: a single word"
    pad = " " + " ".join(toks) + " "
    if _recall(toks, pad):
        return None, "recall request: asks what was said or decided before"
    cue = _cue(toks)
    if cue is not None:
        return _cue_verdict(*cue)
    question = _question(toks, pad)
    if question:
        polite = _polite_standing_request(toks)
        return polite if polite is not None else (None, question)
    reported = _reported(toks, pad)
    if reported:
        return None, reported
    label = _label(raw_lower)
    if label:
        return label
    if raw_lower.endswith((":", "：")) and any(t in _RULE_HEADER_NOUNS for t in toks):
        return HEADER, "rule header introducing a list"
    verdict = _forms(toks, pad)
    if verdict[0] is None and verdict[1].startswith(("no statement form", "problem report")):
        for i, tok in enumerate(toks[:-2]):
            if (tok == ";" or (tok == "," and toks[i + 1] == "so")) and i > 1:
                rest = toks[i + 2 :] if tok == "," else toks[i + 1 :]
                kind, reason = _directive(rest, " " + " ".join(rest) + " ", None, ignore_deictic=True) or (None, "")
                if kind is not None:
                    return kind, f"consequence clause: {reason}"
    return verdict


def is_recall(sentence: str) -> bool:
    toks = _strip_fillers(_tokens(sentence.lower()))
    return _recall(toks, " " + " ".join(toks) + " ")


# --- tokens -------------------------------------------------------------------------------


def _without_quotes(sentence: str) -> tuple[str, bool]:
    text = fold(fold(sentence, TO_ASCII), _DASHES).replace("`", "")
    replaced = _QUOTED.sub(f" {_QUOTE_TOKEN} ", text)
    return replaced, replaced != text


def _tokens(lower: str) -> list[str]:
    out: list[str] = []
    for tok in _TOKEN.findall(lower):
        if len(tok) > 1:
            tok = tok.rstrip(".")
        out.extend(_expand(tok))
    return out


def _expand(tok: str) -> tuple[str, ...]:
    if "'" not in tok and tok not in ("cannot", "lets"):
        return (tok,)
    special = _SPECIAL_CONTRACTIONS.get(tok)
    if special:
        return special
    if tok.endswith("n't"):
        return tok[:-3], "not"
    for suffix, word in _SUFFIX_CONTRACTIONS:
        if tok.endswith(suffix):
            return tok[: -len(suffix)], word
    if tok.endswith("'s"):
        base = tok[:-2]
        return (base, "is") if base in _IS_CONTRACTED else (base,)
    return (tok.replace("'", ""),) if "'" in tok else (tok,)


def _strip_fillers(toks: list[str]) -> list[str]:
    changed = True
    while changed and toks:
        changed = False
        while toks and toks[0] in _PUNCT:
            toks = toks[1:]
            changed = True
        if not toks or toks[0] not in _FILLER_FIRST:
            break
        for filler in _FREE_FILLERS:
            if _starts(toks, filler) and len(toks) > len(filler):
                toks = toks[len(filler) :]
                changed = True
                break
        else:
            for filler in _PUNCT_FILLERS:
                n = len(filler)
                if _starts(toks, filler) and (len(toks) == n or toks[n] in _PUNCT):
                    toks = toks[n:]
                    changed = True
                    break
    if len(toks) >= 2 and toks[-1] == "please":
        toks = toks[:-1]
    if len(toks) >= 2 and toks[-2:] in ([",", "please"], ["please", "!"]):
        toks = toks[:-2]
    if len(toks) >= 3 and toks[-3:-1] == [",", "please"]:
        toks = toks[:-3] + toks[-1:]
    return toks


def _starts(toks: list[str], seq: tuple[str, ...]) -> bool:
    return tuple(toks[: len(seq)]) == seq


def _has(pad: str, phrases: tuple[str, ...]) -> str | None:
    for phrase in phrases:
        if f" {phrase} " in pad:
            return phrase
    return None


def _clause(toks: list[str]) -> list[str]:
    """Tokens up to the first clause break (after the first word)."""
    for i, tok in enumerate(toks[1:], 1):
        if tok in _CLAUSE_BREAK:
            return toks[:i]
    return toks


def _deictic(toks: list[str]) -> str | None:
    """A word pointing at the current work ("this", "it", "for now"), if the first clause has one."""
    clause = _clause(toks)
    for i, tok in enumerate(clause):
        nxt = clause[i + 1] if i + 1 < len(clause) else ""
        if tok in _DEICTIC_WORDS:
            return tok
        if tok == "this" and nxt not in _SCOPE_NOUNS:
            return tok
        if tok == "that" and (not nxt or nxt in _PUNCT or nxt in _DEICTIC_THAT_NEXT):
            return tok
    return _has(" " + " ".join(clause) + " ", _DEICTIC_PHRASES)


def _standing(pad: str) -> str | None:
    found = _has(pad, _STANDING_PHRASES)
    if found:
        return found
    match = _GERUND_FRAME.search(pad)
    if match and match.group(1) not in ("nothing", "anything", "something", "everything"):
        return match.group(0).strip()
    match = _YOU_FRAME.search(pad)
    if match and match.group(1) in _EVENT_VERBS:
        return match.group(0).strip()
    return None


# --- rejections ----------------------------------------------------------------------------


def _recall(toks: list[str], pad: str) -> bool:
    if _has(pad, _RECALL_PHRASES) and ("?" in toks or not _has(pad, ("you remember",))):
        return True
    if any(pad.startswith(f" {start} ") for start in _RECALL_STARTS):
        return True
    # "what is our branch naming convention"
    if (
        len(toks) >= 3
        and toks[0] == "what"
        and toks[1] in ("is", "was", "are", "were")
        and toks[2] in ("our", "my", "the")
    ):
        return any(t in _RECALL_NOUNS for t in toks[3:7])
    return False


def _question(toks: list[str], pad: str) -> str | None:
    if toks[-1] == "?":
        return "question: ends with '?'"
    first, second = toks[0], toks[1] if len(toks) > 1 else ""
    if first in _QUESTION_STARTS:
        return f"question: starts with {first!r}"
    if first in _AUX_QUESTION and second in _PRONOUNS:
        return f"question: starts with {first + ' ' + second!r}"
    if first in ("maybe", "perhaps") or _has(pad, _HEDGES):
        return "question: hedged or uncertain"
    return None


def _polite_standing_request(toks: list[str]) -> Verdict | None:
    """ "Could you always run the formatter first?" is a standing request, not a question."""
    if len(toks) < 4 or toks[0] not in ("can", "could", "would", "will") or toks[1] != "you":
        return None
    rest = [t for t in toks[2:] if t not in ("please", "?")]
    if any(t in ("if", "whether", "why", "how", "what", "where", "which") for t in rest):
        return None
    pad = " " + " ".join(rest) + " "
    marker = _standing(pad)
    if not rest or not marker:
        return None
    kind, reason = _forms(rest, pad, standing=marker)
    if kind is None:
        return None
    return kind, f"polite standing request ({marker!r}): {reason}"


def _reported(toks: list[str], pad: str) -> str | None:
    if " according to " in pad:
        return "quote: reported words ('according to')"
    for i, tok in enumerate(toks[1:], 1):
        before = toks[i - 1]
        if (tok in _REPORT_VERBS and before not in ("i", "we")) or (tok == "say" and before in _PLURAL_REPORTERS):
            return f"quote: reported words ({before + ' ' + tok!r})"
    return None


def _label(raw_lower: str) -> Verdict | None:
    head, sep, body = raw_lower.partition(":")
    if sep and body.strip():
        word = head.strip().removesuffix("s")
        if word in _LABELS:
            return _LABELS[word], f"{_LABELS[word]}: labelled {head.strip()!r}"
    return None


# --- explicit cues ---------------------------------------------------------------------------


def _cue(toks: list[str]) -> tuple[str, bool, list[str]] | None:
    for seq, strong in _CUES:
        if _starts(toks, seq):
            body = toks[len(seq) :]
            while body and body[0] in _CUE_PUNCT:
                body = body[1:]
            if body[:1] == ["that"] and seq[-1] not in _CUE_PUNCT:  # "keep in mind that …"
                body = body[1:]
            if seq == ("remember", "to"):
                body = ["to", *body]
            return " ".join(seq).replace(" :", ":").replace(" ,", ","), strong, body
    return None


def _cue_verdict(cue: str, strong: bool, body: list[str]) -> Verdict:
    words = [t for t in body if t not in _PUNCT]
    if not words:
        return HEADER, f"explicit cue {cue!r} introducing a list"
    pad = " " + " ".join(body) + " "
    question = _question(body, pad)
    if question:
        return None, question
    kind, reason = _forms(body, pad) if body[0] != "to" else ("requirement", "")
    if not strong and kind is None:
        # "note: this is a hack", "remember the bug yesterday": a weak cue about the current work
        if reason.startswith("narration"):
            return None, reason
        deictic = _deictic(body)
        if body[0] in _DEICTIC_WORDS | {"this", "that"} or (deictic and not _standing(pad)):
            return None, f"one-off note: {cue!r} about the current work ({deictic or body[0]!r})"
    default = "requirement" if body[0] == "to" else "fact"
    return kind or default, f"explicit cue {cue!r}"


# --- statement forms ----------------------------------------------------------------------------


def _forms(toks: list[str], pad: str, standing: str | None = None) -> Verdict:
    """The statement forms, most specific first; ``standing`` is a frame found around the sentence."""
    for check in (_frame, _preference, _decision, _conditional):
        verdict = check(toks, pad)
        if verdict is not None:
            return verdict
    directive = _directive(toks, pad, standing)
    if directive is not None:
        return directive
    narration = _narration(toks, pad)
    if narration:
        return None, narration
    habit = _habit(toks)
    if habit is not None:
        return habit
    failure = _failure_predicate(toks, pad)
    if failure:
        return None, f"failure complaint: {failure!r} describes a problem, not a rule"
    convention = _convention(toks, pad)
    if convention is not None:
        return convention
    nouns = [t for t in toks if t in _FAILURE_NOUNS]
    if nouns:
        return None, f"problem report: mentions {nouns[0]!r}"
    return None, "no statement form: not a rule, preference, decision or convention"


def _frame(toks: list[str], pad: str) -> Verdict | None:
    """A leading standing marker ("from now on, …") or scope ("in this repo, …")."""
    if toks[0] not in _FRAME_FIRST:
        return None
    for frame in _STANDING_FRAMES:
        if _starts(toks, frame) and frame not in (("always",), ("never",)):
            rest = toks[len(frame) :]
            while rest and rest[0] in _PUNCT:
                rest = rest[1:]
            marker = " ".join(frame)
            if not [t for t in rest if t not in _PUNCT]:
                return HEADER, f"standing marker {marker!r} introducing a list"
            kind, reason = _forms(rest, " " + " ".join(rest) + " ", standing=marker)
            category = reason.split(":", 1)[0]
            if kind is None and category in ("narration", "failure complaint", "question", "quote"):
                return None, reason
            return kind or "requirement", f"standing marker {marker!r}" + (f": {reason}" if kind else "")
    for words in _SCOPE_FRAMES:
        scope = " ".join(words)
        if _starts(toks, words) and len(toks) > len(words) + 1 and toks[len(words)] == ",":
            rest = toks[len(words) + 1 :]
            rest_pad = " " + " ".join(rest) + " "
            kind, reason = _forms(rest, rest_pad)
            if kind is not None:
                return kind, f"scoped ({scope!r}): {reason}"
            if reason.startswith(("narration", "failure", "question", "quote", "one-off", "reaction")):
                return None, reason
            return "convention", f"convention: scoped statement ({scope!r})"
    return None


def _preference(toks: list[str], pad: str) -> Verdict | None:
    for i, tok in enumerate(toks[:12]):
        if tok not in _PREF_SUBJECTS or (i and toks[i - 1] not in _PUNCT and toks[i - 1] not in ("but", "and", "so")):
            continue
        j = i + 1
        while j < len(toks) and toks[j] in _PREF_ADVERBS:
            j += 1
        negated = False
        if toks[j : j + 1] == ["not"]:
            negated, j = True, j + 1
        elif toks[j : j + 3] == ["can", "not", "stand"]:
            negated, j = True, j + 2
        if j >= len(toks) or toks[j] not in _PREF_VERBS | {"stand"}:
            continue
        verb, obj = toks[j], toks[j + 1 :]
        if verb in ("prefer", "rather") and obj[:1] == ["that"]:
            obj = obj[1:]
        said = f"{tok} {'not ' if negated else ''}{verb}"
        if not obj or obj[0] in _REACTION_OBJECTS or obj[0] in _PUNCT:
            return None, f"reaction: {said!r} about the current work, not a standing preference"
        if verb in ("want", "like", "expect") and (obj[:2] == ["you", "to"] or obj[0] == "to"):
            rest = obj[2:] if obj[0] == "you" else obj[1:]
            verdict = _directive(rest, " " + " ".join(rest) + " ", None) if rest else None
            if verdict is not None and verdict[0] is None:
                return None, verdict[1]
        deictic = _deictic(obj)
        if deictic and verb in ("want", "like", "expect", "love"):
            return None, f"one-off request: {said!r} refers to {deictic!r}"
        return "preference", f"preference: {said!r}"
    if pad.startswith((" my preference ", " my personal preference ")):
        return "preference", "preference: 'my preference'"
    return None


def _decision(toks: list[str], pad: str) -> Verdict | None:
    if _starts(toks, ("let", "us")) and len(toks) > 2:
        verb = toks[2]
        if verb == "go" and toks[3:4] != ["with"]:
            return None, "one-off suggestion: 'let's go …'"
        if verb in _LET_DECISIONS:
            deictic = _deictic(toks[3:])
            if deictic:
                return None, f"one-off suggestion: 'let's {verb}' refers to {deictic!r}"
            return "decision", f"decision: 'let's {verb}'"
        return None, f"one-off suggestion: 'let's {verb}'"
    if pad.startswith(" going with "):
        return "decision", "decision: 'going with'"
    for i, tok in enumerate(toks[:10]):
        if tok not in ("we", "i", "team") or (
            i and toks[i - 1] not in _PUNCT and toks[i - 1] not in ("but", "and", "so", "the", "our")
        ):
            continue
        j = i + 1
        while j < len(toks) and toks[j] in _DECISION_SUBJECT_SKIP:
            j += 1
        if j < len(toks) and toks[j] in _DECISION_VERBS:
            if toks[j] == "decided" and toks[j + 1 : j + 3] in (["to", "take"], ["to", "try"]):
                return None
            return "decision", f"decision: '{tok} {toks[j]}'"
        after = " " + " ".join(toks[j : j + 5]) + " "
        phrase = _has(after, _DECISION_PHRASES)
        moving = _MOVING_TO.match(after)
        if moving and not phrase:
            phrase = moving.group(0).strip()
        if phrase and after.startswith(f" {phrase} "):
            deictic = _deictic(toks[j:])
            if deictic:
                return None, f"one-off plan: '{tok} {phrase}' refers to {deictic!r}"
            return "decision", f"decision: '{tok} {phrase}'"
    return None


def _conditional(toks: list[str], pad: str) -> Verdict | None:
    """ "Whenever you change the schema, bump …" / "If a test is flaky, mark it …"."""
    first = toks[0]
    generic_start = (
        first in ("whenever", "anytime")
        or _starts(toks, ("every", "time"))
        or _starts(toks, ("each", "time"))
        or _starts(toks, ("any", "time"))
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
        verdict = _directive(main, main_pad, standing=" ".join(toks[:2]), ignore_deictic=True)
        if verdict is not None and verdict[0] is not None:
            return verdict[0], f"standing rule ('{first} …'): {verdict[1]}"
        return None
    verdict = _directive(main, main_pad, None, ignore_deictic=True)
    if verdict is not None and verdict[0] is None:
        return verdict
    if verdict is not None:
        return verdict[0], f"conditional rule ('{first} …'): {verdict[1]}"
    return None


def _directive(toks: list[str], pad: str, standing: str | None, ignore_deictic: bool = False) -> Verdict | None:
    """Imperatives and modal sentences: standing rules or one-off task requests."""
    if not toks:
        return None
    deictic = None if ignore_deictic else _deictic(toks)
    marker = standing or _standing(pad)
    first = toks[0]
    # Prohibitions: "don't …", "never …", "stop …", "no emojis in …".
    negation = None
    if _starts(toks, ("do", "not")):
        negation, rest = "don't", toks[2:]
    elif first == "never" and len(toks) > 1:
        negation, rest = "never", toks[1:]
    elif first == "stop" and len(toks) > 1 and toks[1].endswith("ing"):
        negation, rest = "stop", toks[1:]
    if negation:
        if rest and rest[0] == "ever":
            rest = rest[1:]
        if rest and rest[0] in _NEG_CHATTER:
            return None, f"chatter: '{negation} {rest[0]}'"
        if rest and (rest[0] in (_PARTICIPLES | _PAST_IRREGULAR) - _BASE_LIKE_PAST or _is_past(rest[:1])):
            return None, f"narration: '{negation} {rest[0]}'"
        if deictic and not marker:
            return None, f"one-off instruction: '{negation} …' refers to {deictic!r}"
        return "requirement", f"prohibition: '{negation} …'"
    if (
        first == "no"
        and len(toks) > 2
        and toks[1] not in _PUNCT
        and toks[1] not in _NOT_PROHIBITED
        and toks[1:3] != ["more", "questions"]
        and not toks[1].endswith("ed")
    ):
        return "requirement", f"prohibition: 'no {toks[1]} …'"
    if first == "only" and len(toks) > 2 and toks[1] not in ("the", "one", "a", "if", "when", "because"):
        if deictic or _failure_predicate(toks, pad) or _is_past(toks[1:2]) or toks[1] in _PAST_IRREGULAR:
            return None
        return "requirement", "restriction: 'only …'"
    if first == "always" and len(toks) > 1:
        if toks[1] in _ALWAYS_NOT_VERB:
            return None
        if toks[1] in _FAILURE_PREDICATES:
            return None, f"failure complaint: 'always {toks[1]}'"
        return "requirement", "standing instruction: 'always …'"
    if _starts(toks, ("make", "sure")) or _starts(toks, ("be", "sure")) or first == "ensure":
        marker = marker or _quantifier(toks)
        if marker:
            return "requirement", f"standing instruction: 'make sure …' with {marker!r}"
        return None, "one-off task: 'make sure …' without a standing marker"
    # Imperative verbs, unless the first word is the subject of a modal ("commit messages should …").
    if first not in _MODAL_SUBJECTS and any(t in ("should", "must", "shall", "needs") for t in toks[1:3]):
        verdict = _generic_modal(toks, deictic)
        if verdict is not None:
            return verdict
    verdict = _imperative(toks, deictic, marker)
    if verdict is not None:
        return verdict
    # "you should never …", "we need to …", "I have to …"
    if first in _MODAL_SUBJECTS:
        for modal in _MODALS:
            if _starts(toks[1:], modal):
                rest = toks[1 + len(modal) :]
                negated = modal[-1] == "never"
                while rest and rest[0] in _MODAL_ADVERBS:
                    negated = negated or rest[0] in ("never", "not")
                    rest = rest[1:]
                phrase = f"{first} {' '.join(modal)}"
                if negated:
                    return "requirement", f"requirement: '{phrase} not/never …'"
                if not rest:
                    return None
                sub = _imperative(rest, deictic, marker)
                if sub is not None:
                    return sub[0], f"{phrase} …: {sub[1]}"
                return None
    return _generic_modal(toks, deictic)


def _imperative(toks: list[str], deictic: str | None, marker: str | None) -> Verdict | None:
    verb = toks[0]
    nxt = toks[1] if len(toks) > 1 else ""
    policy = verb in _POLICY_VERBS or (verb in _STYLE_VERBS and nxt in _STYLE_NEXT)
    if verb == "keep" and nxt in _KEEP_ONE_OFF:
        policy = False
    if policy:
        if deictic and not marker:
            return None, f"one-off instruction: {verb!r} refers to {deictic!r}"
        kind = "preference" if verb in ("prefer", "favor", "favour") else "requirement"
        return kind, f"standing instruction: policy verb {verb!r}" + (f" with {marker!r}" if marker else "")
    if verb in _RULE_TASK_VERBS and not marker:
        marker = _quantifier(toks)
    if verb in _TASK_VERBS:
        if marker:
            return "requirement", f"standing instruction: {verb!r} with {marker!r}"
        return None, f"one-off task: imperative {verb!r} without a standing marker"
    return None


def _quantifier(toks: list[str]) -> str | None:
    """A generic quantifier ("all user-facing strings", "every migration"), not "all the tests"."""
    for i, tok in enumerate(toks[1:], 1):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok in ("all", "every", "each", "any") and nxt and nxt not in _SPECIFIC_AFTER_QUANTIFIER:
            return f"{tok} {nxt}"
    return None


def _generic_modal(toks: list[str], deictic: str | None) -> Verdict | None:
    """ "All public functions need docstrings", "Migrations must be reversible"."""
    if toks[0] in _GENERIC_SUBJECT_STOP and not (toks[0] == "this" and toks[1:2] and toks[1] in _SCOPE_NOUNS):
        return None
    for m, tok in enumerate(toks[:9]):
        if m == 0 or tok not in _GENERIC_MODALS:
            continue
        after = toks[m + 1 : m + 3]
        nxt = after[0] if after else ""
        if tok in ("must", "should", "shall"):
            if nxt in _EPISTEMIC_AFTER.get(tok, ()) or (nxt == "be" and after[1:] and after[1] in _EPISTEMIC_BE):
                return None
        elif tok in ("needs", "need"):
            if toks[m - 1] in _DETERMINERS:
                continue
        elif tok in ("has", "have"):
            if nxt != "to":
                continue
        elif tok == "may":
            if nxt != "not":
                continue
        elif tok == "can":
            if nxt != "not" or (after[1:] and after[1] in _CANNOT_OBSERVE):
                continue
        elif tok in ("are", "is"):
            if not (
                after and (after[0] in ("required", "forbidden", "mandatory", "banned") or after == ["not", "allowed"])
            ):
                continue
        if any(t in _PUNCT for t in toks[:m]):
            return None
        if deictic:
            return None, f"one-off requirement: refers to {deictic!r}"
        return "requirement", f"requirement: '{' '.join(toks[:m])} {tok} …'"
    return None


def _narration(toks: list[str], pad: str) -> str | None:
    past_time = _has(pad, _PAST_TIMES)
    if past_time:
        return f"narration: past event ({past_time!r})"
    if toks[0] in _NARRATION_SUBJECTS:
        j = 1
    elif toks[0] in _DETERMINERS and len(toks) > 2:
        # "the deploy took …" / "the old parser crashed …"; "our branches are named …" is present.
        j = 2
        if toks[2] not in _NARRATION_ADVERBS | _PAST_IRREGULAR and not _is_past(toks[2:3]):
            if toks[2] in _PRESENT_AUX or toks[2].endswith("s"):
                return None
            j = 3
    else:
        return None
    while j < len(toks) and toks[j] in _NARRATION_ADVERBS:
        j += 1
    if j >= len(toks):
        return None
    verb = toks[j]
    if verb in _PAST_IRREGULAR or _is_past([verb]):
        return f"narration: past tense {verb!r}"
    if verb in ("have", "has") and j + 1 < len(toks):
        part = toks[j + 1]
        if part in _PARTICIPLES or _is_past([part]):
            return f"narration: '{verb} {part}'"
    if verb == "used" and toks[j + 1 : j + 2] == ["to"]:
        return "narration: 'used to'"
    if toks[0] in ("i", "we") and verb in ("am", "are") and j + 1 < len(toks) and toks[j + 1].endswith("ing"):
        return f"narration: ongoing ({verb} {toks[j + 1]})"
    return None


def _is_past(toks: list[str]) -> bool:
    if not toks:
        return False
    tok = toks[0]
    return len(tok) > 4 and tok.endswith("ed") and not tok.endswith("eed") and "-" not in tok


def _failure_predicate(toks: list[str], pad: str) -> str | None:
    for tok in toks:
        if tok in _FAILURE_PREDICATES:
            return tok
    return _has(pad, _FAILURE_PHRASES)


def _habit(toks: list[str]) -> Verdict | None:
    """ "we deploy on Tuesdays", "I always use tabs", "this project uses Poetry"."""
    deictic = _deictic(toks)
    for subject in _WE_SUBJECTS:
        if not _starts(toks, subject):
            continue
        j = len(subject)
        while j < len(toks) and toks[j] in _HABIT_ADVERBS:
            j += 1
        if j < len(toks) and toks[j] in _CONVENTION_VERBS:
            if deictic:
                return None, f"observation about the current work: refers to {deictic!r}"
            kind = "preference" if subject == ("i",) else "convention"
            return kind, f"{kind}: '{' '.join(subject)} … {toks[j]}' (habitual present)"
        break
    if toks[0] == "our" and not deictic:
        for j in range(2, min(len(toks), 6)):
            if toks[j] in _PUNCT:
                break
            k = j
            while k < len(toks) and toks[k] in _HABIT_ADVERBS:
                k += 1
            verbs = _CONVENTION_VERBS | {t + "s" for t in _CONVENTION_VERBS} if k > j else _PROJECT_SUBJECT_VERBS
            if k < len(toks) and toks[k] in verbs:
                return "convention", f"convention: 'our … {' '.join(toks[j : k + 1])}'"
    if (
        len(toks) > 2
        and toks[0] in ("this", "the", "our")
        and toks[1] in _SCOPE_NOUNS | {"backend", "frontend", "api", "cli"}
    ):
        j = 2
        while j < len(toks) and toks[j] in ("always", "only", "now", "still", "also", "strictly", "mainly", "mostly"):
            j += 1
        verb = toks[j] if j < len(toks) else ""
        nxt = toks[j + 1] if j + 1 < len(toks) else ""
        if verb in _PROJECT_SUBJECT_VERBS or (verb == "is" and nxt in _PROJECT_IS) or (verb == "does" and nxt == "not"):
            return "convention", f"convention: '{toks[0]} {toks[1]} {verb}'"
    return None


def _convention(toks: list[str], pad: str) -> Verdict | None:
    deictic = _deictic(toks)
    if toks[0] in ("the", "our", "my", "team", "house"):
        for i, tok in enumerate(toks[1:4], 1):
            if tok in _CONVENTION_NOUNS and any(t in ("is", "are", ":") for t in toks[i + 1 : i + 4]):
                kind = "preference" if tok.startswith("preference") else "convention"
                return kind, f"{kind}: '{toks[0]} {tok} is …'"
    if toks[0] not in _GENERIC_SUBJECT_STOP and not deictic:
        for i, tok in enumerate(toks[1:7], 1):
            if tok in _PLACEMENT_VERBS and toks[i + 1 : i + 2] and toks[i + 1] in _PLACEMENT_PREPS:
                return "convention", f"convention: placement ('{tok} {toks[i + 1]}')"
            if tok in ("are", "is") and toks[i + 1 : i + 2] and toks[i + 1] in _STATUS_WORDS | _PRACTICE_PASSIVES:
                return "convention", f"convention: '{tok} {toks[i + 1]}'"
    scope = _has(pad, _SCOPE_PHRASES + ("everywhere else", "across the board"))
    if scope and not deictic and toks[0] not in _GENERIC_SUBJECT_STOP - {"we"}:
        return "convention", f"convention: scoped statement ({scope!r})"
    return None
