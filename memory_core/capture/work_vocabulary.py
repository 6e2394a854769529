"""The vocabulary of work: its categories, and which shell programs fall into which.

:class:`Reading` is what one operation's input says it did: a category from
:data:`IMPORTANCE` (``inspect`` is not work), whether it was memevo's own, and the
directories it named. The tables below name the programs, subcommands and shell syntax
that :mod:`memory_core.capture.shell_commands` recognises; a program not named here is
not work.
"""

from __future__ import annotations

import re

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

# Read-only shell commands: running only these is a lookup, never work.
LOOKUPS = frozenset(
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
WRAPPERS = frozenset({"sudo", "time", "nohup", "exec", "command", "nice", "builtin", "stdbuf", "unbuffer"})
RUNNER_PREFIXES = {  # "uv run pytest" is pytest
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
DIRECT_RUNNERS = frozenset({"npx", "bunx", "pipx", "xargs"})

TEST_PROGRAMS = frozenset(
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
# Modules that test or check code when run as ``python -m MODULE``.
PYTHON_TEST_MODULES = frozenset(
    {
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
    }
)
BUILD_PROGRAMS = frozenset(
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
INSTALL_SUBCOMMANDS: dict[str, frozenset[str]] = {
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
PUBLISH = {  # publishing and deploying count like a push
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
WRITE_PROGRAMS = frozenset(
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
GIT_INSPECT = frozenset(
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
GIT_CATEGORY = {
    "commit": "commit",
    "revert": "commit",
    "push": "push",
    "merge": "merge",
    "rebase": "merge",
    "cherry-pick": "merge",
    "pull": "merge",
    "am": "commit",
}
REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|"})
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "(", ")", "|&", "\n"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PYTHON = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)*)?$")
SCRIPT = re.compile(r"\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php)$")


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Reading(tuple[str, bool, tuple[tuple[str, str], ...], str]):
    """What one operation's input says it did."""

    __slots__ = ()

    def __new__(
        cls,
        category: str,
        own: bool = False,
        directories: tuple[tuple[str, str], ...] = (),
        label: str = "",
    ) -> Reading:
        return tuple.__new__(cls, (category, own, directories, label))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def category(self) -> str:
        return self[0]

    @property
    def own(self) -> bool:  # memevo's own command or tool
        return self[1]

    @property
    def directories(self) -> tuple[tuple[str, str], ...]:
        """(how, path): ("cd", "/x"), ("git -C", "/y"), ("file", "/z/a")."""
        return self[2]

    @property
    def label(self) -> str:
        return self[3]

    @property
    def importance(self) -> int:
        return IMPORTANCE[self.category]

    @property
    def is_work(self) -> bool:
        return self.category != INSPECT
