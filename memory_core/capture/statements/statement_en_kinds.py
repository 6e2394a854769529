"""Statement-kind vocabulary for :mod:`memory_core.capture.statements.statement_en`.

The word lists that tell the kinds apart once a sentence is worth classifying: policy,
task and event verbs, modals and their subjects, preference and decision phrases,
narration (past tense, past times), failure reports, habits and conventions, list labels
and deictic words. Tables only; the rules that use them live in ``statement_en``.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_en_words import PUNCT

EVENT_VERBS = frozenset(
    "commit push merge release deploy open submit ask change start touch run send create make "
    "add delete remove edit write fix".split()
)

POLICY_VERBS = frozenset(
    "use prefer avoid stick default follow favor favour pin target treat keep stay limit "
    "prefix name indent support require assume spell".split()
)
STYLE_VERBS = frozenset("answer reply respond speak talk explain write".split())  # policy when followed by a style
STYLE_NEXT = frozenset(
    "in with using briefly concisely only always never without short shortly tersely like as "
    "docstrings comments tests code commit".split()
)
KEEP_ONE_OFF = frozenset("going trying working it at up on looking digging this that them me".split())
TASK_VERBS = frozenset(
    "fix run look check open show explain debug investigate implement add remove delete rename refactor update try "
    "find read review write create make change move commit push deploy build install test revert merge rebase undo "
    "continue go start stop restart clean split combine extract replace convert generate bump upgrade downgrade set "
    "configure enable disable print list search grep help tell give send put store place mark tag document format "
    "lint profile benchmark measure compare copy paste edit modify patch wrap squash describe summarize summarise "
    "draft plan think consider ignore skip drop finish complete close reopen post ask mock call do get take see "
    "have let wait retry rerun rewrite redo reset pull fetch clone migrate seed load save upload download sort "
    "strip trim insert append handle verify validate ensure double-check".split()
)
RULE_TASK_VERBS = frozenset(
    "write name format document put store place log wrap prefix mark tag handle validate "
    "route send test cover ensure".split()
)
SPECIFIC_AFTER_QUANTIFIER = frozenset(
    "the these those of my our your them this that time right good".split() + list(PUNCT)
)
NOT_PROHIBITED = frozenset(
    "need way idea problem worries luck rush change changes difference one it that this matter clue doubt thanks "
    "error errors exception exceptions bug bugs crash failure failures traceback issue issues problems timeout "
    "timeouts".split()
)  # "no worries", "no idea", "no errors in the log" are not rules
NEG_CHATTER = frozenset("worry bother mind care panic stress sweat hesitate rush".split())
ALWAYS_NOT_VERB = frozenset(
    "the a an so nice good fun been same like happens happened true great worth fine there".split()
)

MODALS = (
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
MODAL_SUBJECTS = frozenset("you we i everyone everybody".split())
MODAL_ADVERBS = frozenset("always never not only also all really definitely ever just strictly please".split())
GENERIC_MODALS = frozenset("must should shall needs need has have may can are is".split())
EPISTEMIC_AFTER = {"must": frozenset(("have",)), "should": frozenset(("work", "have", "pass"))}
EPISTEMIC_BE = frozenset(
    "a an the some because broken wrong it why from related caused fine ok okay good done "
    "working enough right correct there able".split()
)
CANNOT_OBSERVE = frozenset("find see tell figure reproduce get open connect load start".split())
GENERIC_SUBJECT_STOP = frozenset("it this that he she they there i you we what which who".split())

PREF_SUBJECTS = frozenset(("i", "we"))
PREF_ADVERBS = frozenset(
    "really strongly generally usually much would do also always personally definitely still kind of just".split()
)
PREF_VERBS = frozenset("prefer rather like love hate dislike want expect enjoy".split())
REACTION_OBJECTS = frozenset("it this that them when how what these those".split())

DECISION_VERBS = frozenset("decided agreed settled chose picked".split())
DECISION_PHRASES = (
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
LET_DECISIONS = frozenset(
    "use go stick stay keep standardize standardise adopt switch move drop settle pick choose "
    "agree avoid not always never make".split()
)
DECISION_SUBJECT_SKIP = frozenset("have just finally all already now also both".split())

PAST_IRREGULAR = frozenset(
    "did was were had got went came saw ran made took found thought said told wrote tried "
    "broke forgot left began knew gave kept meant sent spent built lost felt heard paid "
    "stood understood woke drove fell grew".split()
)
PARTICIPLES = frozenset(
    "been done seen gone made taken written broken found run got gotten tried had put set left lost".split()
)
PRESENT_AUX = frozenset("is are am do does will can should must may need needs has have".split())
BASE_LIKE_PAST = frozenset("run put set cut hit let read come".split())  # same spelling as the imperative
NARRATION_SUBJECTS = frozenset("i we you he she they it this that someone somebody nobody everyone".split())
DETERMINERS = frozenset("the my our your this that his her their".split())
NARRATION_ADVERBS = frozenset(
    "just already also then finally accidentally never literally actually still even only "
    "recently ever first totally".split()
)
PAST_TIMES = (
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

FAILURE_PREDICATES = frozenset(
    "crash crashes crashed crashing fail fails failed failing broken breaks broke hang hangs hanging hung freeze "
    "freezes freezing froze frozen flaky flakes segfault segfaults segfaulted panic panics panicked stuck slow "
    "slower wrong mess painful annoying ugh oom throws explodes complaining complains forever".split()
)
FAILURE_PHRASES = (
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
FAILURE_NOUNS = frozenset(
    "error errors exception exceptions bug bugs crash failure failures traceback issue issues "
    "problem problems timeout timeouts".split()
)

WE_SUBJECTS = (
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
HABIT_ADVERBS = frozenset(
    "always never usually normally generally typically only mostly also all still do does "
    "not no longer just strictly consistently rarely tend to".split()
)
CONVENTION_VERBS = POLICY_VERBS | frozenset(
    "deploy release ship run write squash rebase merge tag version vendor review branch document store log host "
    "build publish commit track freeze cut bump rotate call declare wrap put lint format test code develop migrate "
    "cache generate rely depend structure organize organise split group mirror mock enforce check sign "
    "squash-merge squash-merges keep reviews releases deploys ships runs writes uses".split()
)
PROJECT_SUBJECT_VERBS = frozenset(
    "uses runs targets requires follows deploys ships supports relies depends prefers avoids builds lives needs".split()
)
PROJECT_IS = frozenset(
    "built written based deployed hosted licensed managed released tested formatted linted versioned".split()
)
CONVENTION_NOUNS = frozenset(
    "convention conventions rule rules policy policies standard standards guideline "
    "guidelines norm norms style naming practice preference preferences workflow process "
    "approach".split()
)
RULE_HEADER_NOUNS = CONVENTION_NOUNS | frozenset("ground conventions requirements preferences".split())
PLACEMENT_VERBS = frozenset("go goes live lives belong belongs sit sits stay stays reside resides".split())
PLACEMENT_PREPS = frozenset("in under into next inside through via at on".split())
STATUS_WORDS = frozenset(
    "always never only forbidden required mandatory banned preferred deprecated optional allowed".split()
)
PRACTICE_PASSIVES = frozenset(
    "named stored written kept formatted tagged versioned deployed released reviewed "
    "squashed prefixed organized organised structured indented pinned located returned "
    "handled logged documented tested linted generated vendored".split()
)
LABELS = {
    "decision": "decision",
    "rule": "requirement",
    "convention": "convention",
    "policy": "requirement",
    "preference": "preference",
    "requirement": "requirement",
    "guideline": "convention",
    "standard": "convention",
}
DEICTIC_WORDS = frozenset("it them these those".split())
DEICTIC_THAT_NEXT = frozenset(
    "one file function test thing way approach change bug error part line branch commit "
    "method class module code for again too either please".split()
)
DEICTIC_PHRASES = (
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
CLAUSE_BREAK = frozenset((",", ";", ":", "so", "because", "since", "but"))
