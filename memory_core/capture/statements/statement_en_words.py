"""Sentence vocabulary for :mod:`memory_core.capture.statements.statement_en`.

The word lists that read an English sentence before its kind is decided: the tokenizer
and quote patterns, contractions, leading fillers and chatter, recall and question
openers, reported speech, explicit cues ("remember that"), and the standing and scope
frames ("from now on", "in this repo"). Tables only; the rules that use them live in
``statement_en``.
"""

from __future__ import annotations

import re

QUOTED = re.compile(r'"[^"\n]{0,300}"')  # after TO_ASCII folded “…”, 「…」 to "…"
TOKEN = re.compile(r"[a-z0-9][a-z0-9_'+#./*<>-]*|[,;:?!]")
DASHES = (("—", ";"), ("–", ";"))  # a dash between clauses works like a semicolon
GERUND_FRAME = re.compile(r" (?:before|after|when|while) ([a-z]+ing) ")  # "before committing"
YOU_FRAME = re.compile(r" (?:before|after|when|whenever) you ([a-z]+) ")  # "before you push"
MOVING_TO = re.compile(r" are (?:moving|switching|migrating)(?: \S+){0,2} to ")  # "are moving everything to"
QUOTE_TOKEN = "quoted_text"
PUNCT = frozenset(",;:?!")

SPECIAL_CONTRACTIONS = {
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
SUFFIX_CONTRACTIONS = (("'ll", "will"), ("'re", "are"), ("'ve", "have"), ("'m", "am"), ("'d", "would"))
IS_CONTRACTED = frozenset("it that what there here who he she where how this".split())

# Leading words that carry no meaning for the decision ("ok, …", "btw …").
FREE_FILLERS = (
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
PUNCT_FILLERS = (
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
FILLER_FIRST = frozenset(filler[0] for filler in FREE_FILLERS + PUNCT_FILLERS)
CHATTER = frozenset(
    "ok okay alright sure yes yeah yep yup no nope thanks thank you thx great cool nice perfect good fine lgtm "
    "looks sounds got it makes sense ship go ahead continue wait hmm hm hey hi hello morning night right lol "
    "awesome done agreed correct exactly true indeed exactly wow oops sorry please see i that is this works "
    "worked not sure about the other one".split()
)

RECALL_PHRASES = (
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
RECALL_STARTS = (
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
RECALL_NOUNS = frozenset(
    "decision convention conventions rule rules preference policy agreement plan naming setup process".split()
)

QUESTION_STARTS = frozenset(
    "what why how where which who whom whose is are was were am can could would will should shall may might".split()
)
AUX_QUESTION = frozenset("do does did have has".split())
PRONOUNS = frozenset("you we i they it this that these those he she there".split())
HEDGES = ("not sure", "i wonder", "i guess", "wondering", "no idea")

REPORT_VERBS = frozenset(
    "says said reads mentions mentioned states stated wrote claims claimed suggests suggested "
    "recommends recommended shows showed prints printed outputs".split()
)
PLURAL_REPORTERS = frozenset("docs logs people they guidelines instructions others folks".split())

CUES = (  # (tokens, strong); longest first where they share a prefix
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
CUE_PUNCT = frozenset((":", ",", ";"))

STANDING_FRAMES = (
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
SCOPE_NOUNS = frozenset(
    "repo repository project codebase team org company monorepo package service app library "
    "workspace client customer product environment".split()
)
SCOPE_PHRASES = tuple(
    f"{prep} {det} {noun}"
    for prep in ("in", "for", "across")
    for det in ("this", "our", "the")
    for noun in ("repo", "repository", "project", "codebase", "monorepo", "team", "company")
)
SCOPE_FRAMES = tuple(tuple(phrase.split()) for phrase in (*SCOPE_PHRASES, "here"))
FRAME_FIRST = frozenset(frame[0] for frame in STANDING_FRAMES + SCOPE_FRAMES)
STANDING_PHRASES = (
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
