"""What a claim names in its project: paths, package scripts, make targets and git branches.

"Deploy with `scripts/deploy.sh`", "the schema lives in api/schema.yaml", "run `npm run
lint` before pushing", "release from the `release/2.x` branch": each names something the
checkout either has or no longer has (:mod:`.checkout_check` looks). Reading is
conservative, because a claim wrongly taken for stale is a convention lost:

- a **path** is a token with a slash: in backticks or quotes any such token; in prose only one
  that starts with ``./``, ``../``, ``/`` or ``~/``, ends with ``/``, or whose last part has a
  file extension. A bare file name (``parser.py``) may live anywhere in the tree and is not
  read; URLs, host names (``github.com/acme``), globs and placeholders are not paths;
- a **package script** is ``npm|pnpm|yarn|bun run NAME``; ``poe NAME`` a poethepoet task and
  ``pdm|uv|poetry|hatch run NAME`` a pyproject script (these also run any program, so only
  their presence can be confirmed);
- a **make target** is ``make NAME`` in backticks (in prose "make sure" is English);
- a **branch** is a backticked or quoted name beside the word "branch", or the branch of
  ``git checkout|switch|push … NAME`` in backticks;
- a sentence that says something is gone or not to be used ("removed", "instead of",
  "never", "no longer", "not") names nothing: its point may be the very absence.

Pure and standard library only: the hooks run it on the claims they would inject.
"""

from __future__ import annotations

from memory_core.lazy_pattern import lazy

MAX_MENTIONS = 16
MAX_TOKEN = 256

PATH, SCRIPT, TARGET, BRANCH = "path", "script", "target", "branch"

_SENTENCES = lazy(r"(?<=[.!?;。！？；])\s+|\n+")
_NEGATION = lazy(
    r"(?i)\b(?:not|never|no longer|don't|do not|doesn't|isn't|aren't|wasn't|instead of|rather than|removed?|"
    r"deleted?|deprecated|gone|obsolete|renamed|moved|replaced|dropped|retired|old)\b|n't\b"
)
_QUOTED = lazy(r"`([^`\n]{1,256})`|\"([^\"\n]{1,256})\"|'([^'\s]{1,256})'")
_BARE_PATH = lazy(r"(?<![\w/.~:@-])((?:\.{1,2}/|~/|/)?[\w.-]+(?:/[\w.-]+)+/?|(?:\.{1,2}|~)/[\w.-]+/?)")
_EXTENSION = lazy(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_DOMAIN = lazy(r"^[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|app|co|edu|gov|ai|sh|me|info|xyz|cloud|page)$")
_PLACEHOLDER = lazy(r"[*?\[\]{}<>$%|\\]|\bpath/to\b|\byour[-_/]|\bfoo/bar\b")
_PACKAGE_SCRIPT = lazy(r"\b(npm|pnpm|yarn|bun)\s+(?:run|run-script)\s+([\w:.@/-]{1,128})")
_PYPROJECT_SCRIPT = lazy(r"\b(?:(pdm|uv|poetry|hatch)\s+run|(poe))\s+([A-Za-z0-9][\w.-]{0,127})")
_MAKE_TARGET = lazy(r"^make(?:\s+-[A-Za-z]+(?:\s+\S+)?)*\s+([A-Za-z0-9][\w.-]{0,127})")
_GIT_BRANCH = lazy(r"^git\s+(?:checkout|switch|push\s+\S+|merge|rebase)\s+([\w./-]{1,128})$")
_BRANCH_BEFORE = lazy(r"(?i)\bbranch(?:es)?\s+(?:called\s+|named\s+)?$")
_BRANCH_AFTER = lazy(r"(?i)^\s+branch\b")


class Named(tuple[str, str, str]):
    """One thing a claim names: its ``kind`` (path, script, target, branch), its ``name`` and,
    for a script, the tool whose table holds it (``npm``, ``pyproject``, ``poe``)."""

    __slots__ = ()

    def __new__(cls, kind: str, name: str, tool: str = "") -> Named:
        return tuple.__new__(cls, (kind, name, tool))

    @property
    def kind(self) -> str:
        return self[0]

    @property
    def name(self) -> str:
        return self[1]

    @property
    def tool(self) -> str:
        return self[2]

    def describe(self) -> str:
        """How a person reads it: ``scripts/deploy.sh``, ``npm script lint``, ``make target
        deploy``, ``branch release/2.x``."""
        if self.kind == SCRIPT:
            return f"{self.tool} script {self.name}"
        if self.kind == TARGET:
            return f"make target {self.name}"
        if self.kind == BRANCH:
            return f"branch {self.name}"
        return self.name


def _path_token(token: str, quoted: bool) -> str | None:
    token = token.strip().rstrip(".,:;)")
    if not token or len(token) > MAX_TOKEN or "/" not in token or "://" in token or token.startswith("//"):
        return None
    if _PLACEHOLDER.search(token) or any(ch.isspace() for ch in token):
        return None
    first = token.lstrip("./~").split("/", 1)[0]
    if _DOMAIN.match(first):
        return None
    if quoted:
        return token
    explicit = token.startswith(("./", "../", "/", "~/")) or token.endswith("/")
    last = token.rstrip("/").rsplit("/", 1)[-1]
    if explicit or _EXTENSION.search(last):
        return token
    return None


def _commands(span: str) -> list[Named]:
    found: list[Named] = []
    for match in _PACKAGE_SCRIPT.compiled.finditer(span):
        found.append(Named(SCRIPT, match.group(2).rstrip(".:"), "npm"))
    for match in _PYPROJECT_SCRIPT.compiled.finditer(span):
        found.append(Named(SCRIPT, match.group(3).rstrip(".:"), "poe" if match.group(2) else "pyproject"))
    make = _MAKE_TARGET.match(span.strip())
    if make:
        found.append(Named(TARGET, make.group(1)))
    branch = _GIT_BRANCH.match(span.strip())
    if branch and not branch.group(1).startswith("-"):
        found.append(Named(BRANCH, branch.group(1)))
    return found


def _sentence_things(sentence: str) -> list[Named]:
    found: list[Named] = []
    quoted_spans: list[tuple[int, int]] = []
    for match in _QUOTED.compiled.finditer(sentence):
        span = match.group(1) or match.group(2) or match.group(3) or ""
        quoted_spans.append(match.span())
        before, after = sentence[: match.start()], sentence[match.end() :]
        if _BRANCH_BEFORE.search(before) or _BRANCH_AFTER.match(after):
            if not any(ch.isspace() for ch in span) and not _PLACEHOLDER.search(span):
                found.append(Named(BRANCH, span.strip()))
            continue
        commands = _commands(span)
        if commands:
            found.extend(commands)
            continue
        if any(ch.isspace() for ch in span.strip()):
            found.extend(Named(PATH, p) for t in span.split() if (p := _path_token(t, False)))
            continue
        path = _path_token(span, True)
        if path:
            found.append(Named(PATH, path))
    # Prose outside quotes: paths and package scripts only.
    prose = sentence
    for start, end in reversed(quoted_spans):
        prose = prose[:start] + " " * (end - start) + prose[end:]
    for match in _PACKAGE_SCRIPT.compiled.finditer(prose):
        found.append(Named(SCRIPT, match.group(2).rstrip(".:"), "npm"))
    for match in _BARE_PATH.compiled.finditer(prose):
        path = _path_token(match.group(1), False)
        if path:
            found.append(Named(PATH, path))
    return found


def named_things(content: str) -> list[Named]:
    """What ``content`` names that a checkout can confirm, at most :data:`MAX_MENTIONS`, in
    order of appearance, each once; nothing from a sentence about an absence."""
    found: list[Named] = []
    for sentence in _SENTENCES.compiled.split(content):
        if not sentence.strip() or _NEGATION.search(sentence):
            continue
        for named in _sentence_things(sentence):
            if named not in found:
                found.append(named)
            if len(found) >= MAX_MENTIONS:
                return found
    return found
