"""Reading a shell command line: which kind of work it was and which directories it named.

A command line is split into simple commands (:func:`_segments`); each loses its variable
assignments, wrappers and runners (``sudo``, ``env``, ``uv run`` …) and its redirections,
and is then classified by program and subcommand against the tables of
:mod:`memory_core.capture.work.shell_programs` into the categories of
:mod:`memory_core.capture.work.work_vocabulary`. A compound line counts as its most important
part. Unknown programs are not work.
"""

from __future__ import annotations

import os
import re
import shlex

from memory_core.capture.work.shell_programs import (
    ASSIGNMENT,
    BUILD_PROGRAMS,
    DIRECT_RUNNERS,
    GIT_CATEGORY,
    GIT_INSPECT,
    INSTALL_SUBCOMMANDS,
    LOOKUPS,
    PUBLISH,
    PYTHON,
    PYTHON_TEST_MODULES,
    REDIRECTS,
    RUNNER_PREFIXES,
    SCRIPT,
    SEPARATORS,
    TEST_PROGRAMS,
    WRAPPERS,
    WRITE_PROGRAMS,
)
from memory_core.capture.work.work_vocabulary import IMPORTANCE, INSPECT, Reading


class _Segment:
    """What one part of a compound command line did, filled in while it is read."""

    __slots__ = ("category", "own", "directories")

    def __init__(self) -> None:
        self.category = INSPECT
        self.own = False
        self.directories: list[tuple[str, str]] = []


def read_command(command: str) -> Reading:
    """Classify a shell command line; a compound line counts as its most important part."""
    segments = [_read_segment(words) for words in _segments(command)]
    if not segments:
        return Reading(INSPECT, label="shell")
    best = max(segments, key=lambda s: IMPORTANCE[s.category])
    directories = tuple(dict.fromkeys(d for s in segments for d in s.directories))
    return Reading(best.category, own=any(s.own for s in segments), directories=directories, label="shell")


def _segments(command: str) -> list[list[str]]:
    """Simple commands of a command line, as word lists (quotes respected where possible)."""
    text = command.replace("\r", "\n")
    try:
        lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: split naively
        tokens = re.split(r"\s+|(&&|\|\||[;|()])", text)
        tokens = [t for t in tokens if t]
    segments: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        if token in SEPARATORS:
            if current:
                segments.append(current)
            current = []
        else:
            current.append(token)
    if current:
        segments.append(current)
    return segments[:64]


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop variable assignments and wrappers: ``FOO=1 sudo -E time uv run pytest`` -> ``pytest``."""
    i = 0
    while i < len(words):
        word = words[i]
        name = os.path.basename(word)
        if ASSIGNMENT.match(word):
            i += 1
        elif name in WRAPPERS or name == "env":
            i += 1
            while i < len(words) and (words[i].startswith("-") or ASSIGNMENT.match(words[i])):
                i += 1
        elif name == "timeout":
            i += 1
            while i < len(words) and (words[i].startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", words[i])):
                i += 1
        elif name in DIRECT_RUNNERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif name in RUNNER_PREFIXES and i + 1 < len(words) and words[i + 1] in RUNNER_PREFIXES[name]:
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
        else:
            break
    return words[i:]


def _read_segment(raw_words: list[str]) -> _Segment:
    segment = _Segment()
    words, redirected = _redirections(raw_words)
    words = _strip_prefixes(words)
    if not words:
        segment.category = "write" if redirected else INSPECT
        return segment
    program = os.path.basename(words[0])
    args = words[1:]
    if program in ("memevo", "huey_consumer") or _runs_memevo_module(program, args):
        segment.own = True
        return segment
    if program in ("cd", "pushd") and args:
        segment.directories.append(("cd", args[-1]))
    category = _category(program, args, segment)
    if category == INSPECT and program not in LOOKUPS and ("/" in words[0] or SCRIPT.search(program)):
        category = "run"  # a script run by its path: ./deploy.sh, scripts/migrate
    if redirected and IMPORTANCE[category] < IMPORTANCE["write"]:
        category = "write"
    segment.category = category
    return segment


def _redirections(words: list[str]) -> tuple[list[str], bool]:
    """Words without redirections, and whether output was redirected into a file."""
    kept: list[str] = []
    redirected = False
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in REDIRECTS or word in ("<", "<<", "<<<", ">&", "<&"):
            target = words[i + 1] if i + 1 < len(words) else ""
            if word in REDIRECTS and target not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                redirected = True
            skip = True
            if kept and kept[-1].isdigit():  # "2>": the fd number is not an argument
                kept.pop()
            continue
        kept.append(word)
    return kept, redirected


def _runs_memevo_module(program: str, args: list[str]) -> bool:
    if not PYTHON.match(program) or "-m" not in args:
        return False
    index = args.index("-m")
    module = args[index + 1] if index + 1 < len(args) else ""
    return module.split(".")[0] in ("cli", "memory_core", "workers", "memevo")


def _category(program: str, args: list[str], segment: _Segment) -> str:
    first = args[0] if args else ""
    if program == "git":
        return _git(args, segment)
    if program == "gh":
        verbs = args[:2]
        if verbs in (["pr", "merge"],):
            return "merge"
        if verbs in (["pr", "create"], ["release", "create"], ["repo", "create"]):
            return "push"
        return INSPECT
    if program in PUBLISH and first in PUBLISH[program]:
        return "push"
    if PYTHON.match(program):
        return _python(args)
    if program in ("sh", "bash", "zsh", "dash", "fish") and args:
        flag = next((i for i, a in enumerate(args) if re.fullmatch(r"-[a-z]*c[a-z]*", a)), None)
        if flag is not None and flag + 1 < len(args):  # bash -c / -lc / -ec "…"
            inner = read_command(args[flag + 1])
            segment.own = segment.own or inner.own
            segment.directories.extend(inner.directories)
            return inner.category
        return "run"
    if program in INSTALL_SUBCOMMANDS and first in INSTALL_SUBCOMMANDS[program]:
        return "install"
    if program in ("pip", "pip3") and first in INSTALL_SUBCOMMANDS["pip"]:
        return "install"
    if program == "yarn" and not args:
        return "install"
    if program in TEST_PROGRAMS:
        return "test"
    if program in ("npm", "yarn", "pnpm", "bun", "deno"):
        return _package_script(program, args)
    if program in ("make", "gmake"):
        targets = [a for a in args if not a.startswith("-") and "=" not in a]
        if any(t in ("test", "tests", "check", "lint", "typecheck") for t in targets):
            return "test"
        return "run" if any(t in ("run", "serve", "start", "deploy") for t in targets) else "build"
    if program in BUILD_PROGRAMS:
        return "build"
    if program in (
        "cargo",
        "go",
        "dotnet",
        "swift",
        "mix",
        "mvn",
        "gradle",
        "gradlew",
        "./gradlew",
        "mvnw",
        "bazel",
        "sbt",
        "lein",
        "stack",
        "cabal",
        "zig",
    ):
        return _toolchain(program, first)
    if program in ("docker", "podman"):
        if first in ("build", "buildx") or args[:2] == ["compose", "build"]:
            return "build"
        if first in ("run", "exec", "start", "restart", "stop", "rm", "compose", "up", "down", "kill"):
            return "run"
        return INSPECT
    if program in ("systemctl", "service", "supervisorctl", "launchctl", "pm2"):
        return "run" if any(a in ("start", "stop", "restart", "reload", "enable", "disable") for a in args) else INSPECT
    if program in ("kill", "pkill", "killall"):
        return "run"
    if program in ("node", "ruby", "perl", "php", "java", "Rscript", "julia", "lua", "ts-node", "tsx"):
        return INSPECT if (not args or first in ("--version", "-v", "-V", "--help")) else "run"
    if program in ("sed", "perl") and any(a == "-i" or a.startswith("-i") or a == "--in-place" for a in args):
        return "write"
    if program in WRITE_PROGRAMS:
        return "write"
    if program in LOOKUPS:
        if program in ("curl", "wget", "http") and _changes_remote(args):
            return "run"
        return INSPECT
    return INSPECT  # unknown: not recognised as work


def _changes_remote(args: list[str]) -> bool:
    for i, arg in enumerate(args):
        if (
            arg in ("-X", "--request")
            and i + 1 < len(args)
            and args[i + 1].upper() in ("POST", "PUT", "DELETE", "PATCH")
        ):
            return True
        if arg in (
            "-d",
            "--data",
            "--data-raw",
            "--data-binary",
            "-F",
            "--form",
            "-T",
            "--upload-file",
            "--post-data",
            "--method=POST",
        ):
            return True
    return False


def _git(args: list[str], segment: _Segment) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i]
        if option == "-C" and i + 1 < len(args):
            segment.directories.append(("git -C", args[i + 1]))
            i += 2
        elif option in ("-c", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(args):
            if option == "--work-tree":
                segment.directories.append(("git -C", args[i + 1]))
            i += 2
        else:
            if option.startswith("--work-tree="):
                segment.directories.append(("git -C", option.split("=", 1)[1]))
            i += 1
    if i >= len(args):
        return INSPECT
    sub, rest = args[i], args[i + 1 :]
    if sub in GIT_CATEGORY:
        return GIT_CATEGORY[sub]
    if sub in GIT_INSPECT:
        return INSPECT
    if sub == "branch":
        changes = any(a in ("-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy") for a in rest)
        named = any(not a.startswith("-") for a in rest)
        listing = any(a in ("-a", "-r", "-v", "-vv", "--list", "--show-current", "--contains") for a in rest)
        return "git" if changes or (named and not listing) else INSPECT
    if sub == "stash":
        return INSPECT if rest[:1] in (["list"], ["show"]) else "git"
    if sub == "tag":
        return (
            "git" if any(not a.startswith("-") for a in rest) and "-l" not in rest and "--list" not in rest else INSPECT
        )
    return "git"


def _python(args: list[str]) -> str:
    if not args or args[0] in ("--version", "-V", "--help", "-h"):
        return INSPECT
    if "-m" in args:
        index = args.index("-m")
        module = args[index + 1] if index + 1 < len(args) else ""
        rest = args[index + 2 :]
        if module in PYTHON_TEST_MODULES:
            return "test"
        if module == "pip":
            return "install" if rest[:1] and rest[0] in INSTALL_SUBCOMMANDS["pip"] else INSPECT
        if module in ("build", "setuptools", "compileall", "nuitka", "PyInstaller"):
            return "build"
        if module == "twine" and rest[:1] == ["upload"]:
            return "push"
        if module in ("venv", "virtualenv"):
            return "install"
        if module in ("json.tool", "site", "this", "pydoc", "sysconfig", "platform", "http.server"):
            return INSPECT
        return "run"
    return "run"


def _package_script(program: str, args: list[str]) -> str:
    first = args[0] if args else ""
    script = first
    if first in ("run", "run-script") and len(args) > 1:
        script = args[1]
    elif first in ("start", "restart", "stop", "exec", "x"):
        return "run"
    elif first in ("test", "t"):
        return "test"
    if script.startswith(("test", "lint", "check", "typecheck", "type-check", "e2e", "coverage")):
        return "test"
    if script.startswith(("build", "compile", "bundle", "dist", "package")):
        return "build"
    if first in (
        "--version",
        "-v",
        "view",
        "ls",
        "list",
        "outdated",
        "info",
        "why",
        "config",
        "help",
        "audit",
        "search",
        "whoami",
        "root",
        "bin",
        "prefix",
    ):
        return INSPECT
    return "run" if script else INSPECT


def _toolchain(program: str, first: str) -> str:
    if program == "cargo" and first == "check":
        return "build"
    if first in ("test", "nextest", "clippy", "vet", "check", "verify", "lint", "fmt"):
        return "test"
    if first in ("build", "compile", "package", "assemble", "install", "b"):
        return "build"
    if first in ("run", "r", "exec", "bootRun"):
        return "run"
    if first in ("publish", "deploy"):
        return "push"
    if first in ("get", "add", "mod", "restore"):
        return "install"
    return INSPECT
