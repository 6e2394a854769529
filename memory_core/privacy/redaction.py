"""Find secrets in text and replace them with a marker: :func:`redact_secrets`.

Every pattern here runs in time linear in its input: a match can only begin where a run
of its characters begins (a look-behind, or a literal prefix after a word boundary), its
quantifiers never give back what cannot help (possessive forms), and every quantifier
inside a sentence pattern is bounded. :mod:`memory_core.privacy.sanitize` bounds how much of a
text is scanned.

What is redacted (docs/hooks.md lists it for users):

* provider keys by their prefixes (OpenAI/Anthropic ``sk-``, Stripe ``sk_live_`` /
  ``rk_live_`` / ``pk_live_`` / ``whsec_``, GitHub, GitLab, Slack, AWS, Google, npm, PyPI,
  Hugging Face, SendGrid, Twilio, Shopify, DigitalOcean, Databricks, Telegram, JWTs …);
* private-key blocks, and PEM/OpenSSH body lines even without their header;
* ``Bearer``/``token``/``Basic`` credentials, ``Authorization`` and ``X-…-Key`` headers;
* passwords in URLs (also with an empty user or an ``@`` inside), ``curl -u user:pw``,
  ``mysql -pPW``, ``sshpass -p PW``;
* ``NAME=value`` / ``NAME: value`` / ``"NAME": "value"`` whose name mentions a secret,
  token, password, passphrase or credential, and ``…_KEY``/``…_PASS``/``…_AUTH`` names when
  the value looks like a credential;
* a password, passphrase, PIN, token, secret or key stated in a sentence, in English
  ("my password is hunter2Tr0ub4dor", "use Xy7!pq as the password") and Chinese
  ("密码是hunter2", "令牌为abc123XYZ"), when the value looks like a credential (a digit and
  a letter, a symbol, mixed case, quoted, or four digits or more after a password word), so
  "the password field is required" and "the token is valid" stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory_core.lazy_pattern import LazyPattern, lazy

REDACTED = "[REDACTED]"

_PRIVATE_KEY = lazy(
    r"-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]{0,64}PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
# Key bodies without their BEGIN line: two or more whole lines of 60-76 base64 characters
# (PEM 64, OpenSSH 70, MIME 76) that are not plain hex (checksums), with an optional short
# last line, or one DER line ("MII…").
_B64 = r"[A-Za-z0-9+/]"
_NOT_HEX = r"(?=[0-9a-fA-F]*+[g-zG-Z+/])"
_KEY_BODY = lazy(
    rf"^[^\S\n]*+(?:{_NOT_HEX}{_B64}{{60,76}}+={{0,2}}[^\S\n]*+\n[^\S\n]*+){{2,}}(?:{_B64}{{1,76}}+={{0,2}}[^\S\n]*+$)?"
    rf"|^[^\S\n]*+MII{_B64}{{40,}}+={{0,2}}[^\S\n]*+$",
    re.MULTILINE,
)

_W = r"A-Za-z0-9_\-"  # base64url and most key alphabets
# Each provider's pattern with the literals one of which every match contains (the patterns
# are case-sensitive, so a plain substring test decides): a text holding none of them skips
# the pattern, which most texts do for every one of them.
_TOKENS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("sk-",), rf"\bsk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[{_W}]{{16,}}+"),  # OpenAI / Anthropic
    (
        ("_live_", "_test_"),
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}+",
    ),  # Stripe secret, restricted, publishable keys
    (("whsec_",), r"\bwhsec_[A-Za-z0-9+/=]{16,}+"),  # Stripe webhook secrets
    (
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}+",
    ),  # GitHub
    (
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glsoat-", "glft-", "glimt-", "gloas-"),
        rf"\bgl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|oas)-[{_W}]{{20,}}+",
    ),  # GitLab
    (("xox",), r"\bxox[abprse]-[A-Za-z0-9-]{10,}+"),  # Slack tokens
    (("xapp-",), r"\bxapp-\d-[A-Za-z0-9-]{10,}+"),  # Slack app tokens
    (("hooks.slack.com/services/",), r"\bhooks\.slack\.com/services/[A-Za-z0-9/]{20,}+"),  # Slack webhooks
    (("AKIA", "ASIA", "ABIA", "ACCA"), r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),  # AWS access key ids
    (("AIza",), rf"\bAIza[{_W}]{{35}}\b"),  # Google API keys
    (("ya29.",), rf"\bya29\.[{_W}]{{20,}}+"),  # Google OAuth access tokens
    (("GOCSPX-",), rf"\bGOCSPX-[{_W}]{{20,}}+"),  # Google OAuth client secrets
    (("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),  # npm
    (("pypi-AgE",), rf"\bpypi-AgE[{_W}]{{20,}}+"),  # PyPI
    (("hf_",), r"\bhf_[A-Za-z0-9]{30,}+"),  # Hugging Face
    (("SG.",), rf"\bSG\.[{_W}]{{16,}}+\.[{_W}]{{16,}}+"),  # SendGrid
    (("SK",), r"\bSK[0-9a-fA-F]{32}\b"),  # Twilio API keys
    (("shpat_", "shpss_", "shpca_", "shppa_"), r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),  # Shopify
    (("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b"),  # DigitalOcean
    (("dapi",), r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),  # Databricks
    (
        ("gsk", "r8", "sbp", "tvly", "figd", "ntn", "lin_api", "sntry", "pscale_tkn", "pplx"),
        r"\b(?:gsk|r8|sbp|tvly|figd|ntn|lin_api|sntrys|sntryu|pscale_tkn|pplx)[_-][A-Za-z0-9_\-]{24,}+",
    ),  # more APIs
    (("sq0atp-", "sq0csp-"), rf"\bsq0(?:atp|csp)-[{_W}]{{22,}}+"),  # Square
    (("ATATT3",), rf"\bATATT3[{_W}=]{{30,}}+"),  # Atlassian
    (("AGE-SECRET-KEY-1",), r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),  # age
    ((":AA",), r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),  # Telegram bot tokens
    # JWTs: the first segment is one run of the alphabet holding "eyJ" at a word start.
    (("eyJ",), rf"(?<![{_W}])(?=[{_W}]*?(?<![A-Za-z0-9_])eyJ[{_W}]{{10}})[{_W}]++\.[{_W}]{{10,}}+\.[{_W}]{{10,}}+"),
)
_TOKEN_PATTERNS = tuple(lazy(source) for _, source in _TOKENS)

# A value that may be a credential, after a context word: bounded, no spaces.
_VALUE = r"(?:`[^`\n]{1,200}+`|\"[^\"\n]{1,200}+\"|'[^'\n]{1,200}+'|[^\s`\"']{1,200}+)"
_BEARER = lazy(r"(?i)\b(bearer|token)(\s++|\s*+[:=]\s*+)([A-Za-z0-9._~+/\-]{12,}+=*+)")
_HEADER = lazy(
    r"(?i)(?<![A-Za-z0-9_\-])(authorization|proxy-authorization|x-[a-z0-9\-]{0,40}?(?:key|token|secret|auth)"
    r"[a-z0-9\-]{0,40}+|api-?key)([\"']?[^\S\n]*+:[^\S\n]*+[\"']?)((?:bearer|basic|token|digest)[^\S\n]++)?"
    r"([^\s\"',;]{1,4096}+)"
)
_URL_PASSWORD = lazy(r"(?i)(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]*+://[^\s:/@]*+:)([^\s/]*)(@)")
_CLI_PASSWORD = lazy(
    r"(?<!\S)((?:-u|--user)[ =]++[^\s:]{1,256}+:)(\S{1,1024}+)"
    r"|\b((?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,256}?[ \t]-p)([^\s-]\S{0,1023}+)"
    r"|\b(sshpass[ \t]++-p[ \t]*+)(\S{1,1024}+)"
)

# Names of secrets in assignments: a run of name characters holding one of the words.
_NAME_CHARS = r"A-Za-z0-9_.\-"
_STRONG = (
    r"secret|token(?!s|iz)|passwd|password|pwd|passphrase|passcode|bearer|credential|api[_-]?key"
    r"|access[_-]?key|private[_-]?key"
)
_STRONG_WORDS = lazy(f"(?i){_STRONG}")
# Weaker name words: only with a value that looks like a credential ("primary_key=True" stays).
_WEAK_WORDS = lazy(r"(?i)(?:key|(?<![a-z])pass|(?<![a-z])auth|(?<![a-z])dsn|salt)$")
# Names of a secret's attributes, not the secret: TOKEN_URL, PASSWORD_FILE, max_tokens, SECRET_NAME.
_ATTRIBUTE_NAME = lazy(
    r"(?i)(?:tokens|[_.\-](?:length|len|count|limit|budget|usage|size|min|max|type|field|policy|required|expiry"
    r"|expires|ttl|file|path|dir|url|uri|endpoint|name|id|env|header|prefix|format|algorithm|hint|rotation"
    r"|version|enabled|disabled))$"
)
_CANDIDATE = rf"(?=[{_NAME_CHARS}]*?(?i:{_STRONG}|key|pass|auth|dsn|salt))"
# `NAME: value` / `NAME=value` at the start of a line: the whole rest of the line.
_LINE_ASSIGNMENT = lazy(
    rf"^([^\S\n]*+(?:export[^\S\n]++)?){_CANDIDATE}([{_NAME_CHARS}]++)(\s*+[:=]\s*+)(\S.*)$", re.MULTILINE
)
# `NAME=value` inside a line (shell commands, env dumps): the value up to whitespace.
_INLINE_ASSIGNMENT = lazy(rf"(?<![{_NAME_CHARS}]){_CANDIDATE}([{_NAME_CHARS}]++)(=)(\"[^\"]*+\"|'[^']*+'|[^\s\"']++)")
# `"NAME": "value"` (JSON, YAML, Python dicts) anywhere in a line.
_QUOTED_ASSIGNMENT = lazy(
    rf"(?<![A-Za-z0-9_])([\"']){_CANDIDATE}([{_NAME_CHARS}]{{1,128}}+)\1([^\S\n]*+[:=][^\S\n]*+)"
    r"(\"(?:[^\"\\\n]|\\.){0,4096}+\"|'(?:[^'\\\n]|\\.){0,4096}+'|[^\s,}\]]{1,4096}+)"
)

# A secret stated in a sentence.
_SECRET_WORD_EN = (
    r"(?i:password|passphrase|passcode|passwd|pwd|pw|secret|token|credentials?|api[ _-]?key|access[ _-]?key"
    r"|secret[ _-]?key|private[ _-]?key|pin[ _-]?code)|PIN"
)
_SENTENCE_EN = lazy(
    rf"(?<![A-Za-z0-9_\-])(?P<kw>{_SECRET_WORD_EN})(?![A-Za-z0-9_\-])"
    r"(?P<mid>(?:[ \t]{1,4}+(?i:for|of|on|to|at|in)[ \t]{1,4}+(?:(?i:the|my|our|your|this|that|its)[ \t]{1,4}+)?"
    r"[\w.@/\-]{1,64}+(?:[ \t]{1,4}+[\w.\-]{1,32}+)?)?)"
    r"(?P<verb>[ \t]{0,4}+[:=](?!//)|[ \t]{1,4}+(?i:is|was|are|were|will[ \t]be|has[ \t]been|became|reads|equals)"
    r"(?:[ \t]{1,4}+(?i:now|still|just|set[ \t]to|changed[ \t]to|updated[ \t]to))?"
    r"|[ \t]{1,4}+(?i:set|changed|reset|updated)[ \t]{1,4}+(?i:to))?"
    rf"(?P<gap>[ \t]{{0,4}}+)(?P<value>{_VALUE})"
)
_SENTENCE_AS_EN = lazy(
    rf"(?i)\b(?P<lead>(?:use|using|used|with|try|tried|set)[ \t]{{1,4}}+)(?P<value>{_VALUE})"
    r"(?=[ \t]{1,4}+as[ \t]{1,4}+(?:(?:the|my|a|our|your)[ \t]{1,4}+)?"
    r"(?:password|passphrase|passcode|secret|token|api[ _-]?key)\b)"
)
_SENTENCE_ZH = lazy(
    r"(?P<kw>密码|口令|密钥|秘钥|私钥|令牌|通行码|验证码|授权码|访问码"
    r"|(?<![A-Za-z0-9_\-])(?i:password|passphrase|token|secret|api ?key)(?![A-Za-z0-9_\-]))"
    r"(?P<verb>[ \t]{0,4}+[\u4e00-\u9fff]{0,2}?(?:是|为|改成了?|改为|设置为|设为|设置成|换成了?|变成了?)[ \t]{0,4}+"
    r"|[ \t]{0,4}+[:：=](?!//)[ \t]{0,4}+)"
    r"(?P<value>[「“\"'`]?[!-~]{1,200}+)"
)
_PASSWORD_WORDS = frozenset(
    {
        "password",
        "passcode",
        "passwd",
        "pwd",
        "pw",
        "pin",
        "pincode",
        "pin code",
        "pin-code",
        "pin_code",
        "密码",
        "口令",
        "通行码",
        "验证码",
        "授权码",
        "访问码",
    }
)
_REFERENCE = lazy(
    r"^(?:\$\{?[A-Za-z_]\w*+\}?|%[A-Za-z_]\w*+%|\{\{.{0,200}?\}\}|<[^<>]{1,200}+>|\*{3,}+|x{3,}+)$", re.IGNORECASE
)
# Hyphenated or dotted words and host names: "top-secret", "docs.example.com".
_PLAIN_WORDS = lazy(r"[A-Za-z]++(?:[.\-][A-Za-z]++)++")
_TRAILING_PUNCTUATION = ".,;:!?)]}'\"`>。，；：！？、）】」』"


def looks_like_credential(value: str, *, password_word: bool = False) -> bool:
    """Whether a word after a secret's name may be the secret itself.

    Yes for a quoted value, one with a digit and a letter, a symbol inside, or mixed case
    ("hunter2Tr0ub4dor", "Xy7!pq", "dXNlcjpwYXNz"), and after a password word for four
    digits or more; no for plain words ("required", "Valid"), references (``$DB_PASS``,
    ``<password>``, ``{{ secret }}``) and placeholders (``***``).
    """
    quoted = len(value) >= 2 and value[0] in "`\"'" and value[-1] == value[0]
    core = value[1:-1] if quoted else value.rstrip(_TRAILING_PUNCTUATION)
    if not core or core == REDACTED or _REFERENCE.match(core) or _REFERENCE.match(value):
        return False
    if quoted:
        return len(core) >= 3
    if len(core) < 4:
        return False
    if core.isdigit():
        return password_word
    has_digit = any(c.isdigit() for c in core)
    has_alpha = any(c.isalpha() for c in core)
    if has_digit and has_alpha:
        return True
    if any(not c.isalnum() for c in core[1:-1]) and len(core) >= 6 and not _PLAIN_WORDS.fullmatch(core):
        return True
    return any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)


def _assignment(name: str, value: str) -> bool:
    """Whether ``name = value`` assigns a secret."""
    if _ATTRIBUTE_NAME.search(name):
        return False
    if _STRONG_WORDS.search(name):
        return True
    return bool(_WEAK_WORDS.search(name)) and len(value.strip("\"'")) >= 8 and looks_like_credential(value)


def _redact_value(value: str) -> str:
    """The marker in place of ``value``, keeping its quotes and trailing punctuation."""
    if len(value) >= 2 and value[0] in "`\"'「“" and value[-1] in "`\"'」”":
        return value[0] + REDACTED + value[-1]
    core = value.rstrip(_TRAILING_PUNCTUATION)
    lead = value[0] if value[:1] in ("`", '"', "'", "「", "“") else ""
    return lead + REDACTED + value[len(core) :]


def _line(m: re.Match[str]) -> str:
    lead, name, sep, value = m.groups()
    return lead + name + sep + REDACTED if _assignment(name, value) else m.group()


def _inline(m: re.Match[str]) -> str:
    name, sep, value = m.groups()
    return name + sep + REDACTED if _assignment(name, value) else m.group()


def _quoted(m: re.Match[str]) -> str:
    quote, name, sep, value = m.groups()
    if not _assignment(name, value):
        return m.group()
    return quote + name + quote + sep + _redact_value(value)


def _bearer(m: re.Match[str]) -> str:
    word, sep, value = m.groups()
    return word + sep + REDACTED if looks_like_credential(value) else m.group()


def _header(m: re.Match[str]) -> str:
    name, sep, scheme, value = m.groups()
    if value == REDACTED or not (looks_like_credential(value) or (scheme and len(value) >= 8)):
        return m.group()
    return name + sep + (scheme or "") + REDACTED


def _url(m: re.Match[str]) -> str:
    return m.group(1) + REDACTED + m.group(3) if m.group(2) else m.group()


def _cli(m: re.Match[str]) -> str:
    user, password, mysql, mysql_password, sshpass, _ = m.groups()
    if user is not None:  # `-u 1000:1000` (docker) is no password
        return user + REDACTED if looks_like_credential(password) else m.group()
    return (mysql if mysql is not None else sshpass) + REDACTED


def _sentence(m: re.Match[str]) -> str:
    value = m.group("value")
    word = m.group("kw").lower() if "kw" in m.groupdict() else ""
    if not looks_like_credential(value, password_word=word in _PASSWORD_WORDS):
        return m.group()
    if "gap" in m.groupdict() and not m.group("verb"):
        # "password hunter2x" without a verb: only a value that cannot be an ordinary word.
        core = value.strip("`\"'")
        if not m.group("gap") or not (any(c.isdigit() for c in core) and len(core) >= 6):
            return m.group()
    start = m.start("value") - m.start()
    return m.group()[:start] + _redact_value(value)


# Cheap necessary conditions, so a text without any sign of a secret (most prompts) never
# runs the costly patterns. Each is implied by a match of the patterns it guards, with the
# same case rules: a literal a match must contain, or a pattern that a match must contain a
# match of (``_CANDIDATE``'s words, the secret words of a sentence). An ASCII text (most of
# them) is tested for the words in its lower-case form, which for ASCII is exactly what a
# case-insensitive pattern matches; any other text goes through the patterns, whose case
# folding (long s, Kelvin sign, dotless i …) a lower-case form would not reproduce.
#
# Every condition is judged once, on the text as given, not again after each pattern: a
# replacement only ever puts the marker (``[REDACTED]``, which holds none of the words or
# literals and begins and ends with a bracket) in place of part of a match, so whatever the
# text holds after a replacement that the marker is no part of, it held before. A condition
# false of the text given is false of every later form of it, and its patterns could not
# match there either.
_ASSIGNMENT_WORDS = lazy(rf"(?i:{_STRONG}|key|pass|auth|dsn|salt)")
_HEADER_WORDS = lazy(r"(?i)authorization|x-|api")
_SECRET_WORDS = lazy(
    r"(?i:pw|pass|secret|token|credential|key|pin|bearer)|密码|口令|密钥|秘钥|私钥|令牌|通行码|验证码|授权码|访问码"
)
# The same words for an ASCII text's lower-case form (each word of a pattern above, or a
# part of it: "pass" stands for "passwd", "key" for "api_key"; a part can only say yes more often).
_ASSIGNMENT_ASCII = ("secret", "token", "pass", "pwd", "bearer", "credential", "key", "auth", "dsn", "salt")
_HEADER_ASCII = ("authorization", "x-", "api")
_SECRET_ASCII = ("pw", "pass", "secret", "token", "credential", "key", "pin", "bearer")

# A condition reads the text and, for an ASCII text, its lower-case form (else ``None``); a
# tuple of literals is the condition that the text holds one of them.
Gate = Callable[[str, str | None], bool] | tuple[str, ...]


def _any_in(words: tuple[str, ...], text: str) -> bool:
    for word in words:
        if word in text:
            return True
    return False


def _may_assign(text: str, lower: str | None) -> bool:
    if "=" not in text and ":" not in text:
        return False
    return _any_in(_ASSIGNMENT_ASCII, lower) if lower is not None else _ASSIGNMENT_WORDS.search(text) is not None


def _may_state(text: str, lower: str | None) -> bool:
    return _any_in(_SECRET_ASCII, lower) if lower is not None else _SECRET_WORDS.search(text) is not None


def _may_head(text: str, lower: str | None) -> bool:
    if ":" not in text:
        return False
    return _any_in(_HEADER_ASCII, lower) if lower is not None else _HEADER_WORDS.search(text) is not None


def _may_give_url_password(text: str, lower: str | None) -> bool:
    return "://" in text and "@" in text


def _may_hold_key_body(text: str, lower: str | None) -> bool:
    """``MII`` (a DER line), or two lines, each ended by a newline, that are one word of 60 to
    78 characters between spaces (the run, its padding): what ``_KEY_BODY`` needs."""
    if "MII" in text:
        return True
    lines = 0
    for line in text.split("\n")[:-1]:
        if 60 <= len(line) and len(words := line.split()) == 1 and 60 <= len(words[0]) <= 78:
            lines += 1
            if lines == 2:
                return True
    return False


_STEPS: tuple[tuple[LazyPattern, str | Callable[[re.Match[str]], str], Gate | None], ...] = (
    (_PRIVATE_KEY, REDACTED, ("-----BEGIN ",)),
    (_KEY_BODY, lambda m: REDACTED + "\n" if m.group().endswith("\n") else REDACTED, _may_hold_key_body),
    (_LINE_ASSIGNMENT, _line, _may_assign),
    (_QUOTED_ASSIGNMENT, _quoted, _may_assign),
    (_INLINE_ASSIGNMENT, _inline, _may_assign),
    (_URL_PASSWORD, _url, _may_give_url_password),
    (_CLI_PASSWORD, _cli, ("-u", "mysql", "mariadb", "sshpass")),
    (_HEADER, _header, _may_head),
    (_BEARER, _bearer, _may_state),
    *((pattern, REDACTED, literals) for pattern, (literals, _) in zip(_TOKEN_PATTERNS, _TOKENS, strict=True)),
    (_SENTENCE_EN, _sentence, _may_state),
    (_SENTENCE_AS_EN, _sentence, _may_state),
    (_SENTENCE_ZH, _sentence, _may_state),
)


def redact_secrets(text: str) -> str:
    """Replace API keys, tokens, private keys and passwords with a marker (linear time)."""
    given = text
    lower = text.lower() if text.isascii() else None
    judged: dict[Callable[[str, str | None], bool], bool] = {}  # each once, on the text as given (see above)
    for pattern, replacement, may_match in _STEPS:
        if isinstance(may_match, tuple):
            if not _any_in(may_match, given):
                continue
        elif may_match is not None:
            may = judged.get(may_match)
            if may is None:
                may = judged[may_match] = may_match(given, lower)
            if not may:
                continue
        text = pattern.sub(replacement, text)
    return text
