"""The modules each hook event loads stay within an allowlist.

Agents run a hook process on every user turn and every turn end, so what a hook imports is
paid again and again: click, pydantic, httpx and huey never load, regular expressions of
modules an event does not need are never compiled, and no module joins the hook path
unnoticed. Each event runs in a real process, as an agent runs it; the test records every
module loaded after the interpreter started (``sys.modules``) and fails on any module that
is not allowed for that event. It measures the set of modules, never timing.

When a change really needs a new module on a hook path, add it to the allowlist below, and
say in the change why the event needs it (see docs/hooks.md, "Cost").
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hooks import claude_data
from tests.support.processes import REPO

# Runs ``memevo ARGS`` from the console-script entry and lists what it loaded.
PROBE = r"""
import sys
before = set(sys.modules)
args = sys.argv[1:]
sys.argv = ["memevo", *args]
from cli.main import main
try:
    main()
except SystemExit:
    pass
from cli.hooks.deferred_modules import is_loaded  # a deferred module that never ran is not loaded
loaded = sorted(name for name in set(sys.modules) - before if is_loaded(name))
with open(OUT, "w") as handle:
    handle.write("\n".join(loaded))
"""

# Database drivers and TLS: a hook never loads them, on either backend (on PostgreSQL the
# gateway, ``memevo serve``, is the machine's only database client).
DRIVERS = {"psycopg", "psycopg_pool", "redis", "sqlalchemy", "ssl"}
NEVER = DRIVERS | {
    "click",
    "pydantic",
    "httpx",
    "huey",
    "workers.tasks",
    "workers.app",
    "memory_core.records",
    "memory_core.config",
    "tempfile",
    "uuid",
    "secrets",
    "pickle",
    "logging",
    "asyncio",
    # Python 3.11 sets SQLite's no-checkpoint-on-close through the interpreter's own _ctypes
    # (memory_core.store.engines.close_checkpoint), without the ctypes package and struct.
    "ctypes",
    "struct",
}

# Standard-library modules any hook may load (C accelerators, named with a leading
# underscore, are not listed; bare `python -c 'import sqlite3'` already holds re, pathlib,
# collections, enum, functools, os, urllib.parse …). ``inspect`` and ``copy`` are deferred
# by the hook entry (cli/hooks/deferred_modules.py) and never run on these paths; nor does
# hashlib (OpenSSL): ids, dedupe keys and the prompt stash hash with the interpreter's
# built-in SHA-256 (memory_core.ids.sha256_hex); nor fcntl: the bounded logs lock with
# os.lockf (memory_core.files.jsonl_log).
STDLIB = {
    "bisect",
    "collections.abc",
    "datetime",
    "json",
    "json.decoder",
    "json.encoder",
    "json.scanner",
    "math",
    "sqlite3",
    "shlex",
    "sqlite3.dbapi2",
    "stat",
    "typing",
    "typing.io",
    "typing.re",
    "unicodedata",
    "zlib",
}
# No hook defines a dataclass (capture's records are tuples written out, recall's ``Candidate`` a
# slotted class), so none loads ``dataclasses``.
# The session start only enqueues a nudge: no ``typing`` either (the hook entry, the generic
# adapter, the clock and the queue name their types for the type checker only), nor the
# tokenizer's ``unicodedata`` or capture's ``shlex``.
SESSION_STDLIB = {
    "collections.abc",
    "datetime",
    "json",
    "json.decoder",
    "json.encoder",
    "json.scanner",
    "math",
    "sqlite3",
    "sqlite3.dbapi2",
}

ENTRY = {
    "memory_core.store",  # the entry asks the backend whether the store is SQLite (no driver)
    "memory_core.store.engines.backend",
    "memory_core.config_file",  # config.toml read once for the store, the gate and the project
    "cli",
    "cli.main",
    "cli.regex_cache",
    "cli.module_cache",  # the hook path's module code, kept between processes
    "memory_core.files",
    "memory_core.files.private_file",  # both caches' file, written when a hook added to it
    "cli.hooks",
    "cli.hooks.deferred_modules",
    "cli.hooks.entry",
    "cli.hooks.hook_log",  # logs/hooks.log: what a hook could not do, or dropped
    "cli.hooks.event",
    "cli.hooks.adapters",
    "cli.hooks.dispatch",
    "memory_core",
    "memory_core.clock",
    "memory_core.errors",
    "memory_core.paths",
    "memory_core.privacy.sanitize",
    "memory_core.privacy.private_text",  # <private> parts removed at the boundary (docs/configuration.md)
    "memory_core.privacy.exclusion",  # whether the call's directory is excluded (a setting, standard library)
}
# Sanitize's secret patterns, split out of it (defined, not compiled): loaded by the first
# redaction, so never by a session start or end.
REDACTION = {"memory_core.privacy.redaction", "memory_core.lazy_pattern"}
STORE = {
    "memory_core.store",
    "memory_core.store.engines.dbapi",
    "memory_core.store.engines.dialect",  # the schema's per-engine fragments, read by migrations
    "memory_core.store.schema.columns",
    "memory_core.store.engines.connection",
    "memory_core.store.engines.database",
    "memory_core.store.schema.index_version",
    "memory_core.store.schema.migrations",
}
TEXT = {
    "memory_core.text",
    "memory_core.text.cjk_words",  # Chinese measure words and calendar units, read as words
    "memory_core.text.concepts",
    "memory_core.text.stem",
    "memory_core.text.tokenize",
    "memory_core.text.value_classes",  # values that state an attribute ("blue", "$40")
    "memory_core.text.named_values",  # values stated by a name from a lexicon (a brand, a language, a home town)
    "memory_core.text.value_asking",  # how English asks a value by naming it ("what is my bike's colour?")
    "memory_core.text.owners",  # a person named by whose relation they are ("张伟的妻子", "Tom's wife")
    "memory_core.text.vocabulary",
}
RECALL = (
    ENTRY
    | REDACTION
    | STORE
    | TEXT
    | {
        "memory_core.recall",
        "memory_core.recall.aging",
        "memory_core.recall.candidates",
        "memory_core.recall.complement",
        "memory_core.recall.diagnostics",
        "memory_core.recall.digest",
        "memory_core.recall.engine",
        "memory_core.recall.expansion",
        "memory_core.recall.lead",  # the lexical lead when no claim passed the gates
        "memory_core.recall.events",  # a question joining two events asks each on its own
        "memory_core.recall.proof",  # when scoring best-first may stop (out of engine.py)
        "memory_core.text.asking",  # a query's asking part (out of query_features.py)
        "memory_core.text.time_anchor",  # the time a question names ("yesterday", 上周)
        "memory_core.recall.dated",  # claims dated within that time answer it
        "memory_core.text.requests",  # a question asking what the assistant said; a request made to it
        "memory_core.recall.replies",  # the reply after a chosen request answers such a question
        "memory_core.recall.persons",  # a claim about another person than the question names is no answer
        "memory_core.text.changes",  # whether a claim states a change ("switch to", "drop … to 10", 改成)
        "memory_core.recall.changes",  # a later change of a chosen claim, for a question of what holds now
        "memory_core.recall.pairs",  # a second fact: a complement, or a pair when no claim answered alone
        "memory_core.recall.exact",  # claims scored exactly by id (a batch, or one named claim)
        "memory_core.text.subject_roles",  # words naming the subject by what points at or owns it
        "memory_core.recall.body_claims",
        "memory_core.text.query_features",
        "memory_core.text.grammar",  # the words of a query in a verb's place (docs/recall.md)
        "memory_core.text.asked_kind",  # the kind a what/which question asks ("what charting library …")
        "memory_core.recall.kinds",  # a claim naming an instance of that kind is measured without its word
        "memory_core.text.grammar_zh",  # a Chinese task's verb after a verb of request or need
        "memory_core.text.follow_up",  # whether a message continues the last subject
        "memory_core.recall.index",
        "memory_core.recall.query_plan",
        "memory_core.recall.rank",
        "memory_core.recall.rows",
        "memory_core.recall.scoring",
        "memory_core.recall.query_units",
        "memory_core.recall.service",
        "memory_core.recall.results",  # what recall gives back (claims, digest, diagnostics)
        "memory_core.store.tables.postings",
        # the injection log (a plain append when a digest is printed) and the check of the
        # optional review gate (the setting alone when it is off; docs/ui.md)
        "memory_core.reports",
        "memory_core.reports.injection_log",
        "memory_core.files.jsonl_log",  # its bounded private file, shared with the learning log
        "memory_core.project",  # the project an injection served, named as capture names it
        "memory_core.reports.review_gate",
        # whose claims this person may see (a team store; nothing to filter on SQLite)
        "memory_core.store.schema.owners",
        "memory_core.store.tables.index_parts",  # the parts of the index they read (the same rule)
    }
)
NUDGE = {
    "cli.nudge",
    "workers",
    "workers.nudge_queue",
    "memory_core.store",
    "memory_core.store.engines.connection",
    "memory_core.store.engines.dbapi",
    # A writing connection closes without a checkpoint (docs/hooks.md, "Disk syncs of a
    # capture"): on Python 3.11 the setting is made through ctypes (about 1.5 ms, where the
    # checkpoint it avoids cost five disk syncs per database).
    "memory_core.store.engines.close_checkpoint",
}
CAPTURE = (
    ENTRY
    | REDACTION
    | STORE
    | NUDGE
    | {
        "memory_core.capture",
        "memory_core.capture.cues",
        "memory_core.capture.feedback_syntax",
        "memory_core.capture.intake",
        "memory_core.capture.learning_log",
        "memory_core.files.jsonl_log",  # its bounded private file, shared with the injection log
        "memory_core.capture.work.progress",
        "memory_core.capture.work.progress_text",
        # the capture's project, read from .git, and the path origins it adopts (docs/hooks.md)
        "memory_core.project",
        "memory_core.store.tables.origin_aliases",
        "memory_core.capture.statements.statement_en",
        "memory_core.capture.statements.statement_en_forms",
        "memory_core.capture.statements.statement_en_practice",
        "memory_core.capture.statements.statement_en_kinds",
        "memory_core.capture.statements.statement_en_tokens",
        "memory_core.capture.statements.statement_en_words",
        "memory_core.capture.statements.statement_reference",  # a statement that refers back takes its subject
        "memory_core.capture.statements.statement_text",
        "memory_core.capture.statements.statements",
        "memory_core.capture.turn",
        "memory_core.ids",
        "memory_core.store.tables.source_rows",
    }
)
CLAUDE_CODE = {
    "memory_core.ids",  # the prompt stash's names: the built-in SHA-256 (sha256_hex)
    "cli.hooks.adapters.claude_code",
    "cli.hooks.adapters.native",
    "cli.hooks.session_stash",
    "cli.hooks.transcripts",
    "cli.hooks.transcripts.claude_code",
    "cli.hooks.transcripts.claude_compaction",  # its compaction summaries, split out of it
    "cli.hooks.transcripts.common",
    "cli.hooks.transcripts.tail",
}

# The standing digest (docs/hooks.md, "The standing digest"): the session's record of what it
# was given, the project and its origins, the ranking, the setting, and the checkout check.
STANDING = {
    "cli.hooks.session_stash",
    "memory_core.ids",  # the session record's name: the built-in SHA-256
    "memory_core.project",
    "memory_core.store.tables.origin_aliases",
    "memory_core.recall.standing",
    "memory_core.recall.standing_setting",
    "memory_core.recall.checkout_check",
    "memory_core.recall.named_things",
    "memory_core.recall.left_out",  # what a turn's digest leaves out (given at start, stale)
    "memory_core.reports.standing_view",
}

ALLOWED: dict[str, set[str]] = {
    # A generic agent gets the standing digest on a session's first user turn.
    "user_prompt": RECALL | STANDING | {"cli.hooks.adapters.generic"},
    "turn_end": CAPTURE | {"cli.hooks.adapters.generic"},  # a "remember that" turn: no work, no tokenizer
    "session_start": ENTRY | NUDGE | {"cli.hooks.adapters.generic"},
    # Claude Code's session start (not after a compaction) and end: the adapter, no reader,
    # no recall, and, as the generic session start, no ``typing``.
    "claude_code_session": ENTRY
    | NUDGE
    | {
        "memory_core.ids",
        "cli.hooks.adapters.claude_code",
        "cli.hooks.adapters.native",
        "cli.hooks.session_stash",
        "cli.hooks.transcripts",
        "cli.hooks.transcripts.claude_code",
        "cli.hooks.transcripts.claude_compaction",  # its compaction summaries, split out of it
        "cli.hooks.transcripts.common",
        "cli.hooks.transcripts.tail",
    },
    # Claude Code's session start gives the standing digest: the store, ranking and rows, no query engine.
    "claude_code_session_start": RECALL | NUDGE | CLAUDE_CODE | STANDING,
    "claude_code_user_prompt_submit": RECALL | CLAUDE_CODE | STANDING,
    # A turn that did work: its progress source reads the operations and nominates targets
    # with the tokenizer.
    "claude_code_stop": CAPTURE
    | CLAUDE_CODE
    | TEXT
    | {
        "memory_core.capture.work.work_operations",
        "memory_core.capture.work.shell_commands",
        "memory_core.capture.work.work_vocabulary",
        "memory_core.capture.work.shell_programs",
        "memory_core.capture.work.progress_targets",
        # The turn is found from the transcript's end and streamed, whatever its length,
        # keeping its most important operations (docs/hooks.md, "Long turns").
        "cli.hooks.transcripts.stream",
        "cli.hooks.transcripts.keeper",
        # A request naming no topic carries the session's previous one (nomination).
        "memory_core.capture.work.topic_carry",
        "memory_core.text.follow_up",
    },
}


STDLIB_OF = {
    "session_start": SESSION_STDLIB,
    # The session end names the stash by the built-in SHA-256 of memory_core.ids, which
    # also loads ``unicodedata`` (for content hashes).
    "claude_code_session": SESSION_STDLIB | {"unicodedata"},
    # The turn ends: capture's records are tuples written out, so no ``typing``.
    "turn_end": STDLIB - {"typing", "typing.io", "typing.re"},
    "claude_code_stop": STDLIB - {"typing", "typing.io", "typing.re"},
}


def loaded_modules(home: Path, tmp_path: Path, args: list[str], stdin: str, **options: Any) -> list[str]:
    """What ``memevo ARGS`` loaded (:func:`probe_hook`'s options)."""
    return probe_hook(home, tmp_path, args, stdin, **options)[0]


def probe_hook(
    home: Path,
    tmp_path: Path,
    args: list[str],
    stdin: str,
    *,
    env: dict[str, str] | None = None,
    python_options: tuple[str, ...] = (),
) -> tuple[list[str], bytes]:
    """What ``memevo ARGS`` loaded, and what it printed."""
    out = tmp_path / "modules.txt"
    probe = PROBE.replace("OUT", repr(str(out)))
    result = subprocess.run(
        [sys.executable, *python_options, "-c", probe, *args],
        input=stdin.encode("utf-8"),
        cwd=REPO,
        capture_output=True,
        env={"MEMEVO_HOME": str(home), "HOME": str(tmp_path), "PATH": "", **(env or {})},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert not result.stderr, result.stderr  # the hook worked: no failure line
    return out.read_text().split("\n"), result.stdout


def _listed(name: str, allowed: set[str]) -> bool:
    """``name`` is allowed, or is a package of an allowed module (loaded with it; whatever its
    ``__init__`` imported shows up as modules of its own)."""
    return name in allowed or any(other.startswith(name + ".") for other in allowed)


def beyond(event: str, modules: list[str]) -> list[str]:
    """What ``event`` loaded that its allowlist does not hold (C accelerators aside)."""
    ours = ("cli", "memory_core", "workers")
    stdlib = STDLIB_OF.get(event, STDLIB)
    extra = []
    for name in modules:
        if name.split(".")[0] in ours:
            if not _listed(name, ALLOWED[event]):
                extra.append(name)
        elif not name.startswith("_") and name not in stdlib:
            extra.append(name)
    return extra


def generic(event: str, **fields: Any) -> str:
    return json.dumps(
        {"schema": "memevo.hook/v1", "event": event, "cwd": "/work/app", "session_id": "imports", **fields}
    )


@pytest.fixture
def seeded_home(home: Path) -> Path:
    from memory_core import clock
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed, worker_beating

    with Store.open(home) as store:
        seed(store, make_memory("The build needs node 20 on the staging runners", at=clock.now() - 60))
    worker_beating(home)  # a worker runs: a capture nudges it
    return home


def check(event: str, modules: list[str]) -> None:
    extra = beyond(event, modules)
    assert not extra, f"{event} loads modules outside its allowlist: {extra} (see this test's docstring)"
    assert not NEVER & set(modules), sorted(NEVER & set(modules))


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_user_prompt(seeded_home: Path, tmp_path: Path) -> None:
    modules = loaded_modules(
        seeded_home,
        tmp_path,
        ["hook", "user_prompt"],
        generic("user_prompt", prompt="which node version does the build need?"),
    )
    assert "memory_core.recall.service" in modules  # it really recalled
    assert (seeded_home / "last-recall.json").exists()
    check("user_prompt", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_turn_end_with_a_statement(seeded_home: Path, tmp_path: Path) -> None:
    modules = loaded_modules(
        seeded_home,
        tmp_path,
        ["hook", "turn_end"],
        generic("turn_end", user_messages=["remember that the deploy needs node 22"]),
    )
    assert "workers.nudge_queue" in modules  # it captured and nudged
    check("turn_end", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_a_turn_end_that_captures_nothing_opens_no_database(seeded_home: Path, tmp_path: Path) -> None:
    """Most turns end without a statement or work: no sqlite3 (nor datetime), no store, no nudge."""
    modules = loaded_modules(
        seeded_home, tmp_path, ["hook", "turn_end"], generic("turn_end", user_messages=["thanks, that looks good"])
    )
    assert "memory_core.capture.turn" in modules  # it planned the turn and logged the decisions
    assert (seeded_home / "logs" / "learning.jsonl").exists()
    check("turn_end", modules)
    opened = {"sqlite3", "datetime", "memory_core.store.engines.database", "workers.nudge_queue"} & set(modules)
    assert not opened, sorted(opened)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_session_start(seeded_home: Path, tmp_path: Path) -> None:
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "session_start"], generic("session_start"))
    assert "workers.nudge_queue" in modules
    check("session_start", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
@pytest.mark.parametrize("name", ["turn2-bash.SessionStart.1", "turn1-plain.SessionEnd.1"])
def test_claude_code_session_start_and_end(seeded_home: Path, tmp_path: Path, name: str) -> None:
    data = claude_data.payload(name)
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data))
    assert "cli.hooks.adapters.claude_code" in modules
    if name.endswith("SessionStart.1"):
        assert "memory_core.recall.standing" in modules  # it really gave the standing digest
        # without the query engine, the index or the tokenizer
        assert not {"memory_core.recall.engine", "memory_core.recall.rank", "memory_core.text.tokenize"} & set(modules)
        check("claude_code_session_start", modules)
    else:
        check("claude_code_session", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_claude_code_user_prompt_submit(seeded_home: Path, tmp_path: Path) -> None:
    transcript = claude_data.write_records(tmp_path / "t.jsonl", claude_data.records_until(claude_data.TURN_BASH))
    data = claude_data.payload(
        "turn2-bash.UserPromptSubmit.1", transcript, prompt="which node version does the build need?", cwd="/work/app"
    )
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data))
    assert "memory_core.recall.service" in modules
    check("claude_code_user_prompt_submit", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_claude_code_stop(seeded_home: Path, tmp_path: Path) -> None:
    # Two lookups (git status, ls): nothing to capture, so no database is opened.
    transcript = claude_data.write_records(tmp_path / "t.jsonl", claude_data.records_until(claude_data.TURN_BASH))
    data = claude_data.payload("turn2-bash.Stop.1", transcript)
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data))
    assert "memory_core.capture.turn" in modules
    check("claude_code_stop", modules)
    assert not {"sqlite3", "memory_core.store.engines.database"} & set(modules)


# What an interpreter without an editable install's path hook does not load at start, yet
# a hook would load only for the import machinery's sake: ``importlib``'s package and
# ``importlib.util``. A wheel's console script starts without them.
IMPORT_MACHINERY = {"importlib", "importlib.util", "importlib._abc", "importlib.machinery"}


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_a_capture_loads_no_import_machinery_in_an_interpreter_that_starts_without_it(
    seeded_home: Path, tmp_path: Path
) -> None:
    """``python -S`` stands in for an interpreter without an editable install's path hook
    (which loads ``importlib.util`` and ``pathlib`` at start; a wheel's console script has no
    such hook): a Claude Code capture and a turn end load none of :data:`IMPORT_MACHINERY`
    (the adapters and the deferred modules use the import system's own functions). The store
    is created beforehand: creating it imports the migrations' libraries, which ``-S`` hides."""
    bare = subprocess.run(
        [sys.executable, "-S", "-c", "import sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": ""},
        timeout=60,
    ).stdout.split()
    assert not IMPORT_MACHINERY & set(bare)  # else this test could not see them
    lean = {"PYTHONPATH": str(REPO)}  # the checkout, whatever the working directory
    transcript = claude_data.write_records(tmp_path / "t.jsonl", claude_data.records_until(claude_data.TURN_BASH))
    data = claude_data.payload("turn2-bash.Stop.1", transcript)
    stop = loaded_modules(
        seeded_home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data), env=lean, python_options=("-S",)
    )
    assert "memory_core.capture.turn" in stop and "cli.hooks.adapters.claude_code" in stop
    assert not IMPORT_MACHINERY & set(stop), sorted(IMPORT_MACHINERY & set(stop))
    turn_end = loaded_modules(
        seeded_home,
        tmp_path,
        ["hook", "turn_end"],
        generic("turn_end", user_messages=["remember that the deploy needs node 22"]),
        env=lean,
        python_options=("-S",),
    )
    assert "workers.nudge_queue" in turn_end  # it captured and nudged
    assert not IMPORT_MACHINERY & set(turn_end), sorted(IMPORT_MACHINERY & set(turn_end))


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_claude_code_stop_that_captures_a_statement_and_progress(home: Path, tmp_path: Path) -> None:
    """The whole capture path: a "remember that" statement and a commit, whose progress
    source is written for the project state it nominates, then both are nudged."""
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed, worker_beating

    project = "/home/user/project"  # the recorded transcript's cwd
    with Store.open(home) as store:
        seed(
            store,
            make_memory("The billing service refactor is not committed yet", origin=project, kind="project_state"),
        )
    worker_beating(home)  # a worker runs: both sources are nudged
    records = copy.deepcopy(claude_data.records_until(claude_data.TURN_BASH))
    for record in records:
        message = record.get("message", {})
        if record.get("promptId") == claude_data.TURN_BASH and isinstance(message.get("content"), str):
            message["content"] = "Commit the billing service refactor. Remember that the deploy needs node 22."
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            if part.get("type") == "tool_use" and part["input"].get("command") == "git status":
                part["input"]["command"] = "git commit -am wip"
    transcript = claude_data.write_records(tmp_path / "t.jsonl", records)
    data = claude_data.payload("turn2-bash.Stop.1", transcript, cwd=project)
    modules = loaded_modules(home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data))
    logged = json.loads((home / "logs" / "learning.jsonl").read_text().splitlines()[-1])
    assert [d["reason"] for d in logged["decisions"]] == ["captured", "captured"], logged
    assert "workers.nudge_queue" in modules
    check("claude_code_stop", modules)


# A compaction summary: its source, and its self-labelled lines as claims at once. The claims'
# rows, index rows and event are written as plain data (memory_core.store.tables.claim_rows,
# event_rows): the tokenizer for the index, never the record models.
SUMMARY = "The session reviewed the release.\n- Decision: the billing service deploys blue-green behind port 9010."
LOCAL_CLAIMS = TEXT | {
    "memory_core.capture.local_claims",
    "memory_core.capture.summary_lines",
    "memory_core.store.tables.blocked",
    "memory_core.store.tables.claim_ids",
    "memory_core.store.tables.claim_rows",
    "memory_core.store.tables.event_rows",
    "memory_core.store.schema.owners",
    "memory_core.store.tables.postings",
}
ALLOWED["compaction"] = CAPTURE | LOCAL_CLAIMS | {"cli.hooks.adapters.generic"}
ALLOWED["claude_code_post_compact"] = CAPTURE | CLAUDE_CODE | LOCAL_CLAIMS
STDLIB_OF["compaction"] = STDLIB - {"typing", "typing.io", "typing.re"}
STDLIB_OF["claude_code_post_compact"] = STDLIB - {"typing", "typing.io", "typing.re"}


def local_claims(home: Path) -> list[str]:
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        rows = store.conn.execute("SELECT body FROM memories").fetchall()
    bodies = [json.loads(row[0]) for row in rows]
    return [b["content"] for b in bodies if b["evidence"] and b["evidence"]["method"] == "local"]


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_compaction_with_a_labelled_line(seeded_home: Path, tmp_path: Path) -> None:
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "compaction"], generic("compaction", summary=SUMMARY))
    assert "workers.nudge_queue" in modules and "memory_core.capture.local_claims" in modules
    assert "the billing service deploys blue-green behind port 9010." in local_claims(seeded_home)
    check("compaction", modules)


@pytest.mark.sqlite_only  # the hook's own work on SQLite; PostgreSQL: the gateway tests below
def test_claude_code_post_compact_with_a_labelled_line(seeded_home: Path, tmp_path: Path) -> None:
    data = claude_data.payload("turn9-compact.PostCompact.1")
    data["compact_summary"] = f"<summary>\n{SUMMARY}\n</summary>"
    modules = loaded_modules(seeded_home, tmp_path, ["hook", "--agent", "claude-code"], json.dumps(data))
    assert "memory_core.capture.local_claims" in modules
    assert "the billing service deploys blue-green behind port 9010." in local_claims(seeded_home)
    check("claude_code_post_compact", modules)


def test_no_hook_event_loads_the_validation_library() -> None:
    """Every event this test runs is held to NEVER (pydantic, the record models, …); the
    compaction paths are among them."""
    assert {"compaction", "claude_code_post_compact", "turn_end", "claude_code_stop"} <= set(ALLOWED)
    assert {"pydantic", "memory_core.records"} <= NEVER
    allowed = {name for names in ALLOWED.values() for name in names}
    assert not {name for name in allowed if "pydantic" in name or name == "memory_core.records"}


def test_the_checker_sees_a_new_module() -> None:
    assert beyond("session_start", ["cli.main", "click", "_sre", "memory_core.recall.service"]) == [
        "click",
        "memory_core.recall.service",
    ]


def test_the_checker_holds_every_hook_to_the_lean_standard_library() -> None:
    assert beyond("user_prompt", ["inspect", "hashlib", "json", "dataclasses"]) == ["inspect", "hashlib", "dataclasses"]
    assert beyond("turn_end", ["inspect", "hashlib", "json", "dataclasses"]) == ["inspect", "hashlib", "dataclasses"]
    assert beyond("turn_end", ["memory_core.capture.work.progress_targets"]) == [
        "memory_core.capture.work.progress_targets"
    ]
    assert beyond("session_start", ["json", "sqlite3", "typing", "unicodedata"]) == ["typing", "unicodedata"]
    assert beyond("turn_end", ["shlex", "typing"]) == ["typing"]
    assert beyond("session_start", ["memory_core.privacy.sanitize", "memory_core.privacy.redaction"]) == [
        "memory_core.privacy.redaction"
    ]


# On PostgreSQL a hook is the gateway's client: the entry, the backend check, a raw socket.
# Neither the adapters nor the handlers: the gateway runs them.
GATEWAY = ENTRY - {"cli.hooks.adapters", "cli.hooks.dispatch"} | {"cli.hooks.gateway_client"}
GATEWAY_STDLIB = {
    "array",
    "collections.abc",
    "json",
    "json.decoder",
    "json.encoder",
    "json.scanner",
    "math",
    "select",
    "selectors",
    "socket",
}
# With the gateway down the hook logs why (the private logs dir, a bounded log) and spools a capture.
LOGGING = {
    "memory_core.store.engines.connection",
    "memory_core.store.engines.dbapi",
    "memory_core.files.jsonl_log",
}
GATEWAY_DOWN = GATEWAY | LOGGING
SPOOLING = GATEWAY_DOWN | {"cli.hooks.spool", "memory_core.files.durable_files"}


def gateway_beyond(allowed: set[str], modules: list[str]) -> list[str]:
    """What a hook on PostgreSQL loaded beyond ``allowed`` (C accelerators aside)."""
    stdlib = GATEWAY_STDLIB
    extra = []
    for name in modules:
        if name.split(".")[0] in ("cli", "memory_core", "workers"):
            if not _listed(name, allowed):
                extra.append(name)
        elif not name.startswith("_") and name not in stdlib:
            extra.append(name)
    return extra


@pytest.fixture
def pg_gateway(home: Path, pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    from memory_core import clock
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed
    from tests.support.memevo_serve import MemevoServe
    from tests.support.memevo_worker import memevo_env

    with Store.open(home) as store:
        seed(store, make_memory("The build needs node 20 on the staging runners", at=clock.now() - 60))
    with MemevoServe(memevo_env(home, MEMEVO_DATABASE_URL=pg_url), log=tmp_path / "serve.log") as server:
        yield server


@pytest.mark.postgres_only
def test_hooks_through_the_gateway_load_no_driver(pg_gateway, home: Path, tmp_path: Path, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    env = {"MEMEVO_DATABASE_URL": pg_url}
    prompt = generic("user_prompt", prompt="which node version does the build need?")
    modules, printed = probe_hook(home, tmp_path, ["hook", "user_prompt"], prompt, env=env)
    assert b"node 20" in printed  # it really recalled, through the gateway
    assert not gateway_beyond(GATEWAY, modules), gateway_beyond(GATEWAY, modules)
    assert not (NEVER | {"sqlite3", "http.client", "memory_core.store.engines.database"}) & set(modules)

    said = generic("turn_end", user_messages=["remember that the deploy needs node 22"])
    modules, printed = probe_hook(home, tmp_path, ["hook", "turn_end"], said, env=env)
    assert printed == b"" and not gateway_beyond(GATEWAY, modules), gateway_beyond(GATEWAY, modules)
    assert not (NEVER | {"sqlite3", "http.client"}) & set(modules)

    transcript = claude_data.write_records(tmp_path / "t.jsonl", claude_data.records_until(claude_data.TURN_BASH))
    stop = json.dumps(claude_data.payload("turn2-bash.Stop.1", transcript))
    modules, _ = probe_hook(home, tmp_path, ["hook", "--agent", "claude-code"], stop, env=env)
    assert not gateway_beyond(GATEWAY, modules), gateway_beyond(GATEWAY, modules)

    pg_gateway.stop()  # down: recall prints nothing, a capture is spooled, still no driver
    modules, printed = probe_hook(home, tmp_path, ["hook", "user_prompt"], prompt, env=env)
    assert printed == b"" and not gateway_beyond(GATEWAY_DOWN, modules), gateway_beyond(GATEWAY_DOWN, modules)
    modules, printed = probe_hook(home, tmp_path, ["hook", "turn_end"], said, env=env)
    assert printed == b"" and (home / "spool").is_dir()
    assert not gateway_beyond(SPOOLING, modules), gateway_beyond(SPOOLING, modules)
    assert not (NEVER | {"sqlite3", "http.client"}) & set(modules)
