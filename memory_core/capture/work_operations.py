"""What a tool call did, in memevo's terms: a commit, a push, a test run … or a lookup.

A turn's operations arrive as the agent named them (``Bash`` with a command line, ``Edit``
with a JSON input, …). This module reads the shell command or the tool name and says
which kind of work it was, how much it matters as progress evidence, which directories it
named explicitly (``cd``, ``git -C``, file paths) and whether it belongs to memevo itself.
Only the *input* of a call is read here, never its output: tool output never decides what
a turn was about.

Unknown commands are not work: a command memevo does not recognise cannot make a turn a
progress source (a known limit, like a hard kill before the turn ends).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import NamedTuple

# Categories, and how much each matters when only a few observations can be kept:
# commits, pushes and merges (and publishing) first, then test/build/process results,
# then installs, then file changes, routine inspection last.
IMPORTANCE: dict[str, int] = {
    "push": 5,
    "merge": 5,
    "commit": 5,
    "test": 4,
    "build": 4,
    "run": 4,
    "install": 3,
    "write": 2,
    "git": 2,
    "inspect": 1,
}
INSPECT = "inspect"

_SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "sh",
        "zsh",
        "terminal",
        "run_command",
        "execute_command",
        "exec",
        "exec_command",
        "run_shell_command",
        "local_shell",
        "command",
        "run_terminal_cmd",
        "powershell",
        "container.exec",
    }
)
_WRITE_TOOLS = frozenset(
    {
        "write",
        "edit",
        "multiedit",
        "notebookedit",
        "apply_patch",
        "applypatch",
        "write_file",
        "edit_file",
        "create_file",
        "replace_in_file",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "patch",
        "delete_file",
        "move_file",
        "rename_file",
        "insert_edit_into_file",
        "search_replace",
        "replace",  # Gemini CLI's edit tool
    }
)
_VIEW_COMMANDS = frozenset({"view", "read", "list"})
_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "filename", "directory", "cwd")

# Read-only shell commands: running only these is a lookup, never work.
_LOOKUPS = frozenset(
    {
        "ls",
        "ll",
        "la",
        "dir",
        "cat",
        "bat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "find",
        "fd",
        "tree",
        "wc",
        "file",
        "stat",
        "du",
        "df",
        "pwd",
        "echo",
        "printf",
        "which",
        "whereis",
        "type",
        "printenv",
        "date",
        "whoami",
        "id",
        "uname",
        "hostname",
        "ps",
        "pgrep",
        "top",
        "htop",
        "lsof",
        "diff",
        "cmp",
        "sort",
        "uniq",
        "cut",
        "awk",
        "gawk",
        "jq",
        "yq",
        "xxd",
        "od",
        "hexdump",
        "strings",
        "realpath",
        "readlink",
        "dirname",
        "basename",
        "cd",
        "pushd",
        "popd",
        "true",
        "false",
        ":",
        "sleep",
        "wait",
        "history",
        "man",
        "help",
        "export",
        "source",
        ".",
        "set",
        "unset",
        "alias",
        "test",
        "[",
        "[[",
        "column",
        "tr",
        "nl",
        "tac",
        "rev",
        "seq",
        "expr",
        "bc",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "shasum",
        "ping",
        "dig",
        "nslookup",
        "host",
        "netstat",
        "ss",
        "free",
        "uptime",
        "nproc",
        "lscpu",
        "clear",
        "read",
        "exit",
        "tput",
        "locale",
        "getent",
        "curl",
        "wget",
        "http",
        "open",
        "xdg-open",
        "zcat",
        "zless",
        "fold",
        "paste",
        "join",
        "comm",
        "look",
        "apropos",
        "info",
        "whatis",
        "lsblk",
        "mount",
    }
)
_WRAPPERS = frozenset({"sudo", "time", "nohup", "exec", "command", "nice", "builtin", "stdbuf", "unbuffer"})
_RUNNER_PREFIXES = {  # "uv run pytest" is pytest
    "uv": {"run"},
    "poetry": {"run"},
    "pipenv": {"run"},
    "pdm": {"run"},
    "hatch": {"run"},
    "rye": {"run"},
    "bundle": {"exec"},
    "pnpm": {"exec", "dlx"},
    "yarn": {"exec", "dlx"},
    "conda": {"run"},
}
_DIRECT_RUNNERS = frozenset({"npx", "bunx", "pipx", "xargs"})

_TEST_PROGRAMS = frozenset(
    {
        "pytest",
        "py.test",
        "tox",
        "nox",
        "jest",
        "vitest",
        "mocha",
        "ava",
        "karma",
        "rspec",
        "ctest",
        "phpunit",
        "mypy",
        "ruff",
        "flake8",
        "pylint",
        "black",
        "isort",
        "pyright",
        "eslint",
        "prettier",
        "shellcheck",
        "golangci-lint",
        "stylelint",
        "tsc-check",
        "bandit",
        "pre-commit",
        "cypress",
        "playwright",
        "behave",
    }
)
_BUILD_PROGRAMS = frozenset(
    {
        "make",
        "gmake",
        "cmake",
        "ninja",
        "meson",
        "tsc",
        "webpack",
        "rollup",
        "esbuild",
        "gcc",
        "g++",
        "clang",
        "clang++",
        "cc",
        "c++",
        "rustc",
        "javac",
        "scons",
        "msbuild",
    }
)
_INSTALL_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "pip": frozenset({"install", "uninstall", "download"}),
    "npm": frozenset({"install", "i", "ci", "add", "uninstall", "remove", "rm", "update", "up"}),
    "yarn": frozenset({"install", "add", "remove", "upgrade"}),
    "pnpm": frozenset({"install", "i", "add", "remove", "rm", "update", "up"}),
    "bun": frozenset({"install", "i", "add", "remove", "rm"}),
    "apt": frozenset({"install", "remove", "purge", "upgrade"}),
    "apt-get": frozenset({"install", "remove", "purge", "upgrade"}),
    "dnf": frozenset({"install", "remove", "upgrade"}),
    "yum": frozenset({"install", "remove", "update"}),
    "apk": frozenset({"add", "del"}),
    "brew": frozenset({"install", "uninstall", "upgrade", "reinstall"}),
    "cargo": frozenset({"install", "add", "remove"}),
    "go": frozenset({"install", "get"}),
    "gem": frozenset({"install", "uninstall"}),
    "bundle": frozenset({"install", "update", "add"}),
    "poetry": frozenset({"install", "add", "remove", "update", "lock"}),
    "pipenv": frozenset({"install", "uninstall", "update"}),
    "conda": frozenset({"install", "remove", "update", "create"}),
    "mamba": frozenset({"install", "remove", "update", "create"}),
    "composer": frozenset({"install", "require", "update", "remove"}),
    "uv": frozenset({"sync", "add", "remove", "lock"}),
}
_PUBLISH = {  # publishing and deploying count like a push
    "npm": {"publish"},
    "cargo": {"publish"},
    "twine": {"upload"},
    "docker": {"push"},
    "podman": {"push"},
    "kubectl": {"apply", "rollout", "delete", "create", "replace", "scale"},
    "terraform": {"apply", "destroy"},
    "helm": {"install", "upgrade", "uninstall", "rollback"},
    "fly": {"deploy"},
    "flyctl": {"deploy"},
    "vercel": {"deploy", "--prod"},
    "netlify": {"deploy"},
    "gcloud": {"deploy"},
    "heroku": {"releases:rollback"},
    "poetry": {"publish"},
    "uv": {"publish"},
    "gem": {"push"},
    "dotnet": {"nuget"},
}
_WRITE_PROGRAMS = frozenset(
    {
        "mkdir",
        "rm",
        "rmdir",
        "mv",
        "cp",
        "touch",
        "ln",
        "chmod",
        "chown",
        "tee",
        "patch",
        "truncate",
        "install",
        "rsync",
        "dd",
        "unlink",
        "shred",
    }
)
_GIT_INSPECT = frozenset(
    {
        "status",
        "log",
        "show",
        "diff",
        "remote",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "ls-remote",
        "blame",
        "describe",
        "config",
        "fetch",
        "grep",
        "shortlog",
        "reflog",
        "help",
        "version",
        "whatchanged",
        "cat-file",
        "show-ref",
        "for-each-ref",
        "name-rev",
        "count-objects",
        "fsck",
        "check-ignore",
        "var",
    }
)
_GIT_CATEGORY = {
    "commit": "commit",
    "revert": "commit",
    "push": "push",
    "merge": "merge",
    "rebase": "merge",
    "cherry-pick": "merge",
    "pull": "merge",
    "am": "commit",
}
_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "(", ")", "|&", "\n"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)*)?$")
_SCRIPT = re.compile(r"\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php)$")
_ABSOLUTE = re.compile(r"(?:^|(?<=[\s\"'=(:,]))(~?/[^\s\"'`<>|;&()*?,]+)")


class Reading(NamedTuple):
    """What one operation's input says it did."""

    category: str
    own: bool = False  # memevo's own command or tool
    directories: tuple[tuple[str, str], ...] = ()  # (how, path): ("cd", "/x"), ("git -C", "/y"), ("file", "/z/a")
    label: str = ""

    @property
    def importance(self) -> int:
        return IMPORTANCE[self.category]

    @property
    def is_work(self) -> bool:
        return self.category != INSPECT


class _Segment:
    """What one part of a compound command line did, filled in while it is read."""

    __slots__ = ("category", "own", "directories")

    def __init__(self) -> None:
        self.category = INSPECT
        self.own = False
        self.directories: list[tuple[str, str]] = []


def read_operation(tool: str, input_text: str) -> Reading:
    """Classify one tool call by its name and input (never by its output)."""
    name = tool.strip()
    lowered = name.lower()
    if "memevo" in lowered or lowered in ("memory_recall", "mcp__memevo__memory_recall"):
        return Reading(INSPECT, own=True, label=name)
    data = _json_object(input_text)
    if _is_shell_tool(lowered):
        command = input_text
        if data is not None:
            command = str(data.get("command") or data.get("cmd") or data.get("script") or "")
            if isinstance(data.get("command"), list):
                command = shlex.join(str(part) for part in data["command"])
        reading = read_command(command)
        workdir = data.get("workdir") or data.get("cwd") if data is not None else None
        if isinstance(workdir, str) and workdir:
            reading = Reading(reading.category, reading.own, (("cd", workdir), *reading.directories), reading.label)
        return reading
    bare = lowered.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    paths = tuple(("file", p) for p in _input_paths(data, input_text))
    if bare in _WRITE_TOOLS:
        command = str(data.get("command", "")).lower() if data is not None else ""
        category = INSPECT if command in _VIEW_COMMANDS else "write"
        return Reading(category, directories=paths, label=name)
    return Reading(INSPECT, directories=paths, label=name)


def read_command(command: str) -> Reading:
    """Classify a shell command line; a compound line counts as its most important part."""
    segments = [_read_segment(words) for words in _segments(command)]
    if not segments:
        return Reading(INSPECT, label="shell")
    best = max(segments, key=lambda s: IMPORTANCE[s.category])
    directories = tuple(dict.fromkeys(d for s in segments for d in s.directories))
    return Reading(best.category, own=any(s.own for s in segments), directories=directories, label="shell")


def _is_shell_tool(lowered: str) -> bool:
    return lowered in _SHELL_TOOLS or "bash" in lowered or "shell" in lowered


def _json_object(text: str) -> dict | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _input_paths(data: dict | None, text: str) -> list[str]:
    found: list[str] = []
    if data is not None:
        for key in _PATH_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value:
                found.append(value)
    else:  # a clipped input is no longer JSON: look for the keys by pattern
        for key in _PATH_KEYS:
            match = re.search(rf'"{key}"\s*:\s*"([^"\\]+)"', text)
            if match:
                found.append(match.group(1))
    return list(dict.fromkeys(found))


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
        if token in _SEPARATORS:
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
        if _ASSIGNMENT.match(word):
            i += 1
        elif name in _WRAPPERS or name == "env":
            i += 1
            while i < len(words) and (words[i].startswith("-") or _ASSIGNMENT.match(words[i])):
                i += 1
        elif name == "timeout":
            i += 1
            while i < len(words) and (words[i].startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", words[i])):
                i += 1
        elif name in _DIRECT_RUNNERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif name in _RUNNER_PREFIXES and i + 1 < len(words) and words[i + 1] in _RUNNER_PREFIXES[name]:
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
    if category == INSPECT and program not in _LOOKUPS and ("/" in words[0] or _SCRIPT.search(program)):
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
        if word in _REDIRECTS or word in ("<", "<<", "<<<", ">&", "<&"):
            target = words[i + 1] if i + 1 < len(words) else ""
            if word in _REDIRECTS and target not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                redirected = True
            skip = True
            if kept and kept[-1].isdigit():  # "2>": the fd number is not an argument
                kept.pop()
            continue
        kept.append(word)
    return kept, redirected


def _runs_memevo_module(program: str, args: list[str]) -> bool:
    if not _PYTHON.match(program) or "-m" not in args:
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
    if program in _PUBLISH and first in _PUBLISH[program]:
        return "push"
    if _PYTHON.match(program):
        return _python(args)
    if program in ("sh", "bash", "zsh", "dash", "fish") and args:
        flag = next((i for i, a in enumerate(args) if re.fullmatch(r"-[a-z]*c[a-z]*", a)), None)
        if flag is not None and flag + 1 < len(args):  # bash -c / -lc / -ec "…"
            inner = read_command(args[flag + 1])
            segment.own = segment.own or inner.own
            segment.directories.extend(inner.directories)
            return inner.category
        return "run"
    if program in _INSTALL_SUBCOMMANDS and first in _INSTALL_SUBCOMMANDS[program]:
        return "install"
    if program in ("pip", "pip3") and first in _INSTALL_SUBCOMMANDS["pip"]:
        return "install"
    if program == "yarn" and not args:
        return "install"
    if program in _TEST_PROGRAMS:
        return "test"
    if program in ("npm", "yarn", "pnpm", "bun", "deno"):
        return _package_script(program, args)
    if program in ("make", "gmake"):
        targets = [a for a in args if not a.startswith("-") and "=" not in a]
        if any(t in ("test", "tests", "check", "lint", "typecheck") for t in targets):
            return "test"
        return "run" if any(t in ("run", "serve", "start", "deploy") for t in targets) else "build"
    if program in _BUILD_PROGRAMS:
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
    if program in _WRITE_PROGRAMS:
        return "write"
    if program in _LOOKUPS:
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
    if sub in _GIT_CATEGORY:
        return _GIT_CATEGORY[sub]
    if sub in _GIT_INSPECT:
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
        if module in (
            "pytest",
            "unittest",
            "tox",
            "nox",
            "mypy",
            "ruff",
            "flake8",
            "pylint",
            "black",
            "isort",
            "doctest",
            "pyright",
            "bandit",
            "coverage",
        ):
            return "test"
        if module == "pip":
            return "install" if rest[:1] and rest[0] in _INSTALL_SUBCOMMANDS["pip"] else INSPECT
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


def absolute_paths(text: str) -> list[str]:
    """Absolute (or ``~``) paths written in ``text``, trailing punctuation removed."""
    found = []
    for match in _ABSOLUTE.finditer(text):
        path = match.group(1).rstrip(".,;:!?)]}'\"")
        if len(path) > 1 and path not in ("//",):
            found.append(path)
    return list(dict.fromkeys(found))
