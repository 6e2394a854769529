"""What an English query's word order says: the words in a verb's place, and whether it
asks where or when.

A verb says how a question asks or what the user is about to do, not what it is about:
"Let's *fix* the widget API server" is about the widget API server, and "what port does
MySQL *listen* on?" asks MySQL's port. Read as a subject, such a word made the earlier
message's task ("fix", "debug", "work") a context subject every answer had to hold, and
let a claim about another subject ("Redis listens on port 6380") count as matching two
words of the question. Four bounded grammatical positions are read (query side only; the
index is unchanged), no dictionary of verbs:

* the first word of a sentence right before an article, a determiner or an object pronoun
  (an imperative: "*Fix* the widget API server", "*Help* me debug it");
* after a task opener: ``let's``, ``let me``, ``please``, ``can/could/would/will you``,
  ``can/could/should/shall we``, ``help me``, ``I'll``, ``we will``, and ``time/need/
  want/going/have/try/how/able/ready/plan/about … to``; a verb of need, obligation or
  request before the task's verb: a modal after its subject ("I *must* fix", "we *should*
  debug"), a request or necessity stated of the task ("I was *asked* to repair", "it is
  *necessary* to patch", "I'd *like* you to profile"). The opener's own content word (need,
  asked, necessary …) is no subject either;
* the word after a subject pronoun that follows a wh-question's auxiliary, whatever follows
  it ("how do I *take* my coffee?");
* the last word of a wh-question whose auxiliary comes before its subject, when only
  particles or prepositions follow it ("what port does MySQL listen on?", "where does the
  MongoDB database live?"). Where, when, how and why may be followed by an object ("when
  did Caroline meet Melanie?"), so there the subject must be one word or start with a
  determiner or pronoun; what and which questions have asked for the object already.

A question asking *where* or *when* something is, was or happens ("where does the MongoDB
database live?", "when is the deploy?") asks for a value of its subject, a place or a time,
as "what port …" does with a word: the short named-subject rule then applies to it.

A question may also pick out what it asks about by a description instead of a name: a
relative clause on a light head noun ("那个来自重庆的人叫什么名字", "深圳那家医院的那个人多大",
"the one who lives in Denver, what is her email?"). The words of the clause are a
condition the thing meets, usually stated in another claim than the one that answers
(:func:`describes_subject`); the short named-subject rule does not apply to such a question.

These are heuristics of word order, not a parser: a word they miss stays a subject, and a
question they do not recognise is judged as before.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = r"[a-z][a-z0-9'-]*"
_ADVERB = r"(?:please|also|just|quickly|now|then|first|finally|maybe|really|actually|go\s+ahead\s+and)"
_TASK = re.compile(
    r"\b(?:let's|lets|let\s+(?:us|me)|please|(?:can|could|would|will)\s+(?:you|u)|"
    r"(?:can|could|should|shall)\s+(?:we|i)|help\s+(?:me|us)(?:\s+to)?|(?:i|we)(?:'ll|\s+will)|gonna|wanna|gotta|"
    r"(?:time|need|needs|needed|want|wants|wanted|going|have|has|had|got|try|tries|trying|tried|how|able|ready|"
    r"plan|plans|planning|hoping|supposed|about|decided|'d\s+like|would\s+like|"
    # a request or a necessity stated of the task: "I was asked to …", "it is necessary to …"
    r"asked|told|required|expected|meant|necessary|essential|important|"
    # a request addressed to the listener: "I'd like you to …", "we need you to …"
    r"(?:like|want|wants|need|needs|ask|asking)\s+(?:you|u))\s+to|"
    # a modal of obligation or ability after its subject: "I must …", "we should …"
    r"(?:i|we|you|u|they|he|she)(?:'ll|'d|'ve)?\s+(?:(?:really|still|also|just|definitely|probably)\s+)?"
    r"(?:must|should|ought\s+to|might|may|can|could|would|shall)(?:\s+not|n't)?)"
    rf"(?=(?:\s+{_ADVERB})?\s+({_WORD}))"
)
# The words of a task opener that would otherwise read as subjects: the verb of need,
# obligation or request itself ("I *need* to fix …", "it is *necessary* to patch …").
_OPENER_WORD = re.compile(r"[a-z]+")
_NOT_OPENER_WORDS = frozenset("i we you u they he she me us it to let's lets let".split())
# An imperative: the first word of a sentence, right before an article, a determiner or an
# object pronoun ("Fix the widget API server", "Help me debug it", "Check my config").
_IMPERATIVE = re.compile(
    r"(?:^|[.!?;:\n]\s*)(?:(?:ok|okay|so|now|then|and|but|alright|well|first|next|also)\b[\s,]*)*"
    r"([a-z][a-z'-]*)\s+(?=(?:the|a|an|my|our|your|this|that|these|those|its|their|all|some|every|me|us|it|them)\b)"
)
# A clause of time with a pronoun for its subject: the word after the pronoun (past an adverb,
# or an auxiliary before a participle) is its verb ("since I *moved* to Lisbon", "before we
# *switched* to uv", "since I have *started* …"; "since I had covid": `had` is the verb), and
# the conjunction dates the clause, naming nothing (not "when", a question's word, read by
# the question's own pattern).
_CLAUSE_WORDS = ("since", "after", "before", "until")
_CLAUSE = re.compile(
    r"\b(since|after|before|until)\s+(?:i|we|you|he|she|they)\s+(?:(?:just|first|finally|recently|actually|really)\s+)?"
    r"(?:(?:had|have|has|was|were|am|is|are)\s+(?=[a-z'-]+(?:ed|en|ing)\b))?([a-z][a-z'-]*)"
)
_PREPOSITION = "(?:on|at|in|to|for|from|with|by|up|out|off|into|onto|of|about|under|over|through|after|before)"
_QUESTION = re.compile(
    r"\b(what|which|where|when|how|why|whom)((?:\s+[a-z0-9'-]+){0,3}?)\s+"
    r"(?:do|does|did|don't|doesn't|didn't|can|could|should|would|will|shall|might|must|can't|won't"
    # the perfect's auxiliary before a pronoun: "which books have I read?" ("which users have
    # admin access?" has its main verb)
    r"|(?:have|has|had|haven't|hasn't)(?=\s+(?:i|you|we|they|he|she)\s)"
    # a form of "be" before a pronoun and a verb or adjective: "what food am I allergic to?",
    # "which book are you reading?"
    r"|(?:am|is|are|was|were)(?=\s+(?:i|you|we|they|he|she|it)\s))"
    rf"((?:\s+{_WORD}){{1,4}}?)\s+(?!{_PREPOSITION}\b)({_WORD})"
    # prepositions alone ("… listen on?"), or one short phrase after the verb: "what do I
    # usually eat *for breakfast*?", "what did you decide *about redis*?"
    rf"(?:(?:\s+{_PREPOSITION})*|\s+{_PREPOSITION}(?:\s+(?:the|a|an|my|our|your|his|her|their|this|that))?\s+{_WORD})"
    r"\s*$"
)
_PLACE_OR_TIME = re.compile(
    r"\b(?:where|when)(?:'s|\s+(?:do|does|did|is|are|was|were|will|would|can|could|should|has|have|had)\b)"
)
_CHINESE_PLACE_OR_TIME = ("哪里", "哪儿", "在哪", "什么时候", "何时", "哪天", "几点", "什么地方")
# A relative clause on a light head noun: 那个<clause>的人 / 那个<clause>的，他 … /
# <clause>的那个人 / <clause>的人，他们 … (Chinese, normalized: full-width commas are
# ASCII; 那么, 那边 … are no demonstrative), the one who …
# (English). The heads are the language's light nouns for "one", not a list of things.
_HEAD_ZH = "(?:人|家伙|东西|地方)"
_PRONOUN_ZH = "(?:他们|她们|它们|他|她|它|其|人家)"
_DESCRIBED_ZH = re.compile(
    rf"那(?![么时边里样儿天年次])(?:个|位|名|家|些)?[^,.?!;:，。？！；：的]{{1,40}}的(?:{_HEAD_ZH}|,?\s*{_PRONOUN_ZH})"
    rf"|[^,.?!;:，。？！；：]{{2,40}}的(?:那位|那(?:个|名|些)(?:人|家伙|东西|地方|,|{_PRONOUN_ZH}))"
    # <clause>的人，他们 …: the people of a place or a trait, taken up by a pronoun
    rf"|[^,.?!;:，。？！；：]{{2,40}}的(?:人|家伙),\s*{_PRONOUN_ZH}"
)
_DESCRIBED_EN = re.compile(
    r"\b(?:the|that|this)\s+(?:one|ones|person|people|guy|guys|man|woman|girl|boy|thing|place|"
    r"someone|somebody)\s+(?:who|that|which|whose|whom)\b|\bwhoever\b|\bwhichever\b"
)
_LATIN = re.compile(r"[a-z]{2}")
# Every match of _QUESTION holds one of these.
_WH_WORDS = ("what", "which", "where", "when", "how", "why", "whom")
_SENTENCE_END = re.compile(r"[.!?;\n]+(?:\s|$)")
_ARTICLES_AND_POSSESSIVES = frozenset("the a an my your our their its his her this that these those".split())
_PREPOSITIONS = frozenset(
    "on at in to for from with by up out off into onto of about under over through after before".split()
)
# A what/which phrase, a form of "be", its subject (a name or a noun phrase, not a pronoun:
# those the question pattern reads), and a participle or adjective with its stranded
# preposition, or nothing: "what breed is pepper", "what is my son interested in".
_COPULAR = re.compile(
    r"\b(?:what|which)((?:\s+[a-z0-9'-]+){0,3}?)\s+(?:is|are|was|were)"
    rf"((?:\s+{_WORD}){{1,4}}?)(?:\s+({_WORD})(?:\s+{_PREPOSITION})+|(?:\s+{_PREPOSITION})+)?\s*$"
)
# A participle or a predicate adjective: a regular participle, or one of the language's
# common irregular participles and predicate adjectives (a noun compound's last word — "the auth
# *token*", "kafka *connect*", "the login *bug*" — is none).
_PREDICATE = re.compile(
    r"^[a-z-]{2,}(?:[^e]ed|ied)$|^(?:afraid|fond|aware|sure|keen|allergic|available|responsible|compatible|"
    r"dependent|relevant|different|famous|capable|suitable|familiar|similar|ready|happy|built|made|done|set|held|"
    r"kept|sent|spent|found|bought|paid|sold|told|brought|taught|caught|cut|lost|won|put|run|written|given|taken|"
    r"chosen|broken|hidden|frozen|driven|known|shown|seen|spoken|stolen|forgotten|eaten)$"
)
_SUBJECT_PRONOUNS = frozenset("i you we they he she".split())
_ADVERBS = frozenset(
    "usually always often ever never first last still just really also actually originally recently finally "
    "sometimes normally typically even already again once been being be".split()
)
# A subject of several words that starts like this is one noun phrase ("the MongoDB database").
_DETERMINERS = frozenset("the a an my your our their its his her this that these those it they he she you we i".split())


VERB, ASKED, CONJUNCTION = "verb", "asked", "conjunction"


def word_roles(text: str) -> dict[str, str]:
    """The words of normalized (lowercase) ``text`` with a grammatical role: :data:`VERB`
    (standing where a verb stands) or :data:`ASKED` (the words of a wh-phrase, "node
    version" of "which node version does the build need?": what is asked, not its subject)."""
    roles: dict[str, str] = {}
    if _LATIN.search(text) is None:  # Chinese alone, say: no English word order to read
        return roles
    if any(w in text for w in _WH_WORDS):
        _question_roles(text, roles)
    if any(w in text for w in _CLAUSE_WORDS):
        for match in _CLAUSE.finditer(text):
            roles.setdefault(match.group(1), CONJUNCTION)
            roles.setdefault(match.group(2), VERB)
    for match in _IMPERATIVE.finditer(text):
        roles[match.group(1)] = VERB
    for match in _TASK.finditer(text):
        roles[match.group(1)] = VERB
        for word in _OPENER_WORD.findall(match.group(0)):
            if word not in _NOT_OPENER_WORDS:
                roles.setdefault(word, VERB)
    return roles


def _question_roles(text: str, roles: dict[str, str]) -> None:
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        _wh_roles(sentence, roles)
        _copular_roles(sentence, roles)
        _pronoun_verb(sentence, roles)


# A wh-question's auxiliary before a subject pronoun: the word after the pronoun (past
# adverbs) is its verb, whatever follows it ("how do I *take* my coffee?", "why did I *quit*
# my job at Google?", "what did I *buy* for my mom's birthday?"); the wh-question pattern
# reads the verb only where nothing but a preposition or one short phrase follows it.
_PRONOUN_AUXILIARY = re.compile(
    r"\b(?:what|which|where|when|how|why|who|whom)\b(?:\s+[a-z0-9'-]+){0,4}?\s+"
    r"(?:do|does|did|can|could|should|would|will|shall|might|must|have|has|had)\s+"
    r"(?:i|you|we|they|he|she)((?:\s+[a-z][a-z'-]*){1,3})"
)


_JOINING = frozenset(("and", "or", "&"))  # "how did he and julia meet?": a subject of two


def _pronoun_verb(sentence: str, roles: dict[str, str]) -> None:
    match = _PRONOUN_AUXILIARY.search(sentence)
    if match is None:
        return
    act = next((w for w in match.group(1).split() if not _is_adverb(w)), None)
    if act is not None and act not in _ARTICLES_AND_POSSESSIVES and act not in _PREPOSITIONS and act not in _JOINING:
        roles.setdefault(act, VERB)


def _wh_roles(sentence: str, roles: dict[str, str]) -> None:
    """A wh-question's asked words and verb (its auxiliary before its subject)."""
    match = _QUESTION.search(sentence)
    if match is None:
        return
    wh, asked, subject, verb = match.groups()
    words = subject.split()
    if any(w in _PREPOSITIONS for w in words) or words[-1] in _ARTICLES_AND_POSSESSIVES:
        # "what did you give your mom for christmas": no verb after "your"
        return
    if words[0] in _SUBJECT_PRONOUNS and len(words) > 1 and words[1] not in ("and", "or", "&"):
        # A pronoun is a whole subject: the word after it (past adverbs) is the verb and
        # the last word its object or complement ("when did I *become* vegetarian?",
        # "how did I *meet* Sarah?"), not the other way round.
        act = next((w for w in words[1:] if not _is_adverb(w)), None)
        if act is not None:
            roles.update(dict.fromkeys(asked.split(), ASKED))
            roles[act] = VERB
            if verb.endswith(("ed", "ing")):  # a participle completing the object: "… like answers *formatted*?"
                roles[verb] = VERB
            return
    if wh in ("what", "which") or len(words) == 1 or words[0] in _DETERMINERS:
        roles.update(dict.fromkeys(asked.split(), ASKED))
        roles[verb] = VERB


def _copular_roles(sentence: str, roles: dict[str, str]) -> None:
    """A what/which phrase before a form of "be" and its subject: the phrase is what is asked
    ("what *breed* is Pepper?", "which *team* is Leo on?"), and a participle or adjective
    before a stranded preposition is the verb ("what is my son *interested* in?", "what is
    the cache *used* for?"). Read after the wh-question's own roles, which it never changes."""
    match = _COPULAR.search(sentence)
    if match is None:
        return
    asked, subject, predicate = match.groups()
    words = subject.split()
    if any(w in _PREPOSITIONS for w in words):
        return
    if words[-1].endswith("ing"):  # a progressive ("… is the project using?"): no copula
        return
    for word in asked.split():
        roles.setdefault(word, ASKED)
    # A word after an article or a possessive is the subject's noun ("what city is the
    # *office* in?", "… melanie's *grandma* from?"), and a predicate reads as a participle
    # or an adjective, not as a noun.
    opens = words[-1] in _ARTICLES_AND_POSSESSIVES or words[-1].endswith("'s")
    if predicate and not opens and _PREDICATE.search(predicate):
        roles.setdefault(predicate, VERB)


def _is_adverb(word: str) -> bool:
    """An adverb or an auxiliary's participle ("been"): not the verb after a pronoun."""
    return word in _ADVERBS or (word.endswith("ly") and len(word) > 4)


def describes_subject(text: str) -> bool:
    """Whether normalized ``text`` picks out what it asks about by a relative clause on a
    light head noun ("那个30岁的人是做什么的", "the one who moved to Denver")."""
    if _DESCRIBED_ZH.search(text) is not None:
        return True
    return _LATIN.search(text) is not None and _DESCRIBED_EN.search(text) is not None


# What holds now: "what is my *current* 5k best?", "which carrier am I with *now*?", "我*现在*用什么
# 软件？" ("current" as a word, not of "current-user" or "--show-current"; not 出现在, 实现在 …).
# A request ("can you fix it now?") asks for an act, and a list ("what books …", "how many
# …", 哪些, 都) for several things that may all hold now.
_CURRENT = re.compile(
    r"(?<![\w-])(?:current|currently|now|nowadays|these\s+days|at\s+the\s+moment|at\s+present|presently|latest|"
    r"anymore|any\s+more)(?![\w-])"
)
_CURRENT_ZH = re.compile("(?<![出实体表发])现在|目前|当前|如今|最新")
_ASKS = re.compile(
    r"\?|^\s*(?:what|which|where|when|who|how|do|does|did|is|are|am|was|were|can|could|should|have|has)\b"
)
# (a request to remind or tell is a question's framing: "can you remind me what I use now?")
_REQUEST = re.compile(
    r"^\s*(?:(?:ok|okay|so|now|then|and|but)[\s,]+)*(?:(?:can|could|would|will)\s+(?:you|u)"
    r"(?!\s+(?:please\s+)?(?:remind|tell|recall|remember|show)\b)|(?:should|shall|can)\s+(?:i|we)"
    r"|please(?!\s+(?:remind|tell)\b)|do\s+it|let's|lets)\b"
)
_ASKS_ZH = re.compile("[?？吗呢]|什么|哪|多少|几|谁|怎么")
_NOT_PLURAL = "(?:is|was|has|does|this|its|his|hers|ours|yours|theirs|as|always|perhaps)"
# An auxiliary (of a question, or after a counted noun: "how many rabbitmq brokers *are* …").
AUXILIARY = r"(?:do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should)"
# The head of a wh-phrase is its last word, right before the auxiliary ("which redis *version*
# do …", "what *books* am I …").
_PLURAL_ASKED = re.compile(
    rf"\b(?:what|which)(?:\s+[a-z-]+){{0,2}}?\s+(?!{_NOT_PLURAL}\b)[a-z-]*[^su\s']s\s+{AUXILIARY}\b"
    r"|\b(?:what|which)\s+are\b|\bcurrent\s+[a-z-]*[^su\s']s\b|\ball\b|\bhow\s+many\b"
)


def asks_current(text: str) -> bool:
    """Whether normalized ``text`` is a question asking what holds now (one thing, not a list
    nor a request): of two claims answering the same words, the newer then supersedes the
    older."""
    if _CURRENT_ZH.search(text) is not None:
        return _ASKS_ZH.search(text) is not None and "哪些" not in text and "都" not in text
    if _LATIN.search(text) is None or _CURRENT.search(text) is None:
        return False
    if _REQUEST.search(text) is not None or _PLURAL_ASKED.search(text) is not None:
        return False
    return _ASKS.search(text) is not None


# Two events a question of order or of time between joins: "which came first, A or B?",
# "did I A before or after B?", "how many days passed between A and B?", "先A还是先B？",
# "A和B，哪个在前？", "A和B之间隔了多久？". Each is an event of its own, stated in a claim of
# its own: both are wanted, and neither is the other's subject. Each ends where its sentence
# does ("… and the hotfix? asking for the postmortem"); an order is asked of what happened
# ("which *did* I do first", not "what should I do first"), and time between two events
# is time elapsed ("how long between …", not "how long is the timeout between …").
_HALF = "([^?!。？！]{2,160}?)"
_END = r"\s*(?:[?!。？！]|\.(?=\s|$)|$)"
_TWO_EVENTS = (
    re.compile(
        r"\b(?:which|what|who)\b(?:\s+[a-z'-]+){0,3}?\s+(?:did|came|happened|occurred|was|were|started|began)\b"
        rf"[^?,:]{{0,40}}?\b(?:first|earlier|sooner|last|later)\s*[,:]\s*{_HALF},?\s+or\s+{_HALF}{_END}"
    ),
    re.compile(
        rf"\b(?:did|do|was|were|have|had)\s+(?:i|we|you|he|she|they)\s+{_HALF}\s+before\s+or\s+after\s+{_HALF}{_END}"
    ),
    re.compile(
        r"\bhow\s+(?:long|much\s+time|many\s+(?:days|weeks|months|years|hours|minutes))"
        r"(?:\s+(?:(?:has|had|have)\s+)?(?:passed|elapsed|gone\s+by|went\s+by|were\s+there|was\s+there|was\s+it|is\s+it))?"
        rf"\s+between\s+{_HALF}\s+and\s+{_HALF}{_END}"
    ),
    # "how many days before the concert did I buy the tickets?" (past events: "how long after
    # lunch do I take my pills?" asks a habit)
    re.compile(
        r"\bhow\s+(?:long|many\s+(?:days|weeks|months|years|hours|minutes))\s+(?:before|after)\s+"
        rf"{_HALF}\s+(?:did|was|were|had)\s+{_HALF}{_END}"
    ),
)
# (the last 和 before the second event: "我们和客户签约和上线之间" joins 客户签约 and 上线)
_ORDER_ZH = "(?:在前|在先|先|更早|在后|更晚)(?=[?？。,，]|$|一些|一点|呢|吗|发生)"
_TWO_EVENTS_ZH = (
    re.compile(rf"先{_HALF}还是先{_HALF}{_END}"),
    re.compile(
        rf"^([^?!。？！]{{2,80}})(?:和|与|跟|还是)([^?!。？！]{{2,80}}?)[,，]?\s*(?:哪个|哪一个|哪件事){_ORDER_ZH}"
    ),
    re.compile(
        r"^([^?!。？！]{2,80})(?:和|与|跟)([^?!。？！]{2,80}?)之间(?:隔|相隔|过|差|相差|经过)了?(?:多久|多少天|几天|多长时间|几个月|多少年)"
    ),
)


def two_events(text: str, written: str = "") -> tuple[str, str] | None:
    """The two events normalized ``text`` joins in a question of order or of time between
    them, or ``None``: as ``written`` (the text ``text`` was normalized from) has them, where
    only the letters' case differs, else as ``text`` has them."""
    patterns = _TWO_EVENTS_ZH if any("\u4e00" <= ch <= "\u9fff" for ch in text) else ()
    if _LATIN.search(text) is not None and any(
        w in text for w in ("first", "earlier", "sooner", "last", "later", "before", "after", "between")
    ):
        patterns = (*patterns, *_TWO_EVENTS)
    for pattern in patterns:
        match = pattern.search(text)
        if match is not None:
            cased = unicodedata.normalize("NFKC", written).replace("’", "'")
            source = cased if len(cased) == len(text) else text
            first, second = (source[match.start(n) : match.end(n)].strip(" ,，") for n in (1, 2))
            if first and second:
                return first, second
    return None


def asks_place_or_time(text: str) -> bool:
    """Whether normalized ``text`` asks where or when something is, was or happens."""
    if any(w in text for w in _CHINESE_PLACE_OR_TIME):
        return True
    if "where" not in text and "when" not in text:
        return False
    return _PLACE_OR_TIME.search(text) is not None
