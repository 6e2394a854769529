"""Claims the checkout has outgrown: what a claim names, what a real checkout has, and what
the hooks, `memevo check`, `show` and `explain` do with a claim whose file went away and came
back. Real git checkouts (``git init``, commits, ``pack-refs``) and the real store on both backends.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core.recall.checkout_check import CheckoutView, forget_answers, missing_names
from memory_core.recall.named_things import BRANCH, PATH, SCRIPT, TARGET, Named, named_things
from memory_core.recall.stale_record import read_stale
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed

NOW = 1_800_000_000.0
DEPLOY = "Deploy with `scripts/deploy.sh` from a clean checkout."


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "shop"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    for key, value in (("user.email", "dev@example.invalid"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)
    (path / "scripts").mkdir()
    (path / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "start")
    forget_answers()
    return path


def test_what_a_claim_names() -> None:
    def names(text: str) -> list[tuple[str, str]]:
        return [(n.kind, n.name) for n in named_things(text)]

    assert names(DEPLOY) == [(PATH, "scripts/deploy.sh")]
    assert names("The schema lives in api/schema.yaml.") == [(PATH, "api/schema.yaml")]
    assert names("Config is in ./config.toml and the docs in docs/guide/") == [
        (PATH, "./config.toml"),
        (PATH, "docs/guide/"),
    ]
    assert names("Run `npm run lint` before pushing, then pnpm run build.") == [
        (SCRIPT, "lint"),
        (SCRIPT, "build"),
    ]
    assert names("Use `make deploy` to ship.") == [(TARGET, "deploy")]
    assert names("Release from the `release/2.x` branch; `git checkout develop` first.") == [
        (BRANCH, "release/2.x"),
        (BRANCH, "develop"),
    ]
    assert names("Check tasks with `poe check`.") == [(SCRIPT, "check")]
    # Prose, URLs, hosts, globs, bare file names and "make" as English name nothing.
    for text in (
        "Use pnpm, not npm.",
        "See https://github.com/acme/shop/blob/main/x.py or github.com/acme/shop.",
        "read/write and input/output both work; node.js is fine",
        "Name test files `*_spec.py`.",
        "Edit parser.py carefully and make sure the tests pass.",
        "Put it in `path/to/file.txt`.",
    ):
        assert names(text) == [], text
    # A sentence about an absence names nothing: its point may be that the thing is gone.
    assert names("We removed scripts/old.sh; deploy with make.") == []
    assert names("Use `make ship` instead of scripts/deploy.sh.") == []
    assert Named(SCRIPT, "lint", "npm").describe() == "npm script lint"


def test_paths_in_a_real_checkout(repo: Path, tmp_path: Path) -> None:
    view = CheckoutView.of(str(repo / "scripts"))
    assert view is not None and view.root == str(repo.resolve())
    assert view.has(Named(PATH, "scripts/deploy.sh")) is True
    assert view.has(Named(PATH, "./deploy.sh")) is True  # relative to the working directory inside it
    assert view.has(Named(PATH, "api/schema.yaml")) is False
    assert view.has(Named(PATH, str(repo.resolve() / "scripts" / "deploy.sh"))) is True
    assert view.has(Named(PATH, "/etc/elsewhere.conf")) is None  # outside the checkout: not checked
    assert view.has(Named(PATH, "../../outside/x.py")) is None
    assert CheckoutView.of(str(tmp_path)) is None  # no checkout: nothing is checked


def test_scripts_targets_and_branches_in_a_real_checkout(repo: Path) -> None:
    view = CheckoutView.of(str(repo))
    assert view is not None
    assert view.has(Named(SCRIPT, "lint", "npm")) is None  # no package.json: cannot tell
    (repo / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint ."}}), encoding="utf-8")
    (repo / "Makefile").write_text("deploy: build\n\t./scripts/deploy.sh\nbuild:\n\ttrue\n", encoding="utf-8")
    (repo / "pyproject.toml").write_text(
        '[project.scripts]\nshop-cli = "shop:main"\n[tool.poe.tasks]\ncheck = "ruff check ."\n', encoding="utf-8"
    )
    forget_answers()
    assert view.has(Named(SCRIPT, "lint", "npm")) is True
    assert view.has(Named(SCRIPT, "build", "npm")) is False
    assert view.has(Named(TARGET, "deploy")) is True and view.has(Named(TARGET, "release")) is False
    assert view.has(Named(SCRIPT, "check", "poe")) is True and view.has(Named(SCRIPT, "fmt", "poe")) is False
    # `uv run NAME` runs a script or any program: only its presence can be told.
    assert view.has(Named(SCRIPT, "shop-cli", "pyproject")) is True
    assert view.has(Named(SCRIPT, "pytest", "pyproject")) is None
    assert view.has(Named(BRANCH, "main")) is True and view.has(Named(BRANCH, "release/2.x")) is False
    git(repo, "branch", "release/2.x")
    git(repo, "pack-refs", "--all")  # the branch now lives in packed-refs only
    forget_answers()
    assert not (repo / ".git" / "refs" / "heads" / "release" / "2.x").exists()
    assert view.has(Named(BRANCH, "release/2.x")) is True
    # A Makefile with includes may define any target: cannot tell.
    (repo / "Makefile").write_text("include common.mk\ndeploy:\n\ttrue\n", encoding="utf-8")
    forget_answers()
    assert view.has(Named(TARGET, "release")) is None


def test_unreadable_or_odd_files_never_fail(repo: Path) -> None:
    (repo / "package.json").mkdir()  # a directory where the file should be
    (repo / "Makefile").write_bytes(b"\xff\xfe not utf-8")
    view = CheckoutView.of(str(repo))
    assert view is not None
    assert view.has(Named(SCRIPT, "lint", "npm")) is None
    assert view.has(Named(TARGET, "deploy")) is None
    assert missing_names(view, "Run `npm run lint` and `make deploy`.") == []
    assert CheckoutView.of(str(repo / "no" / "such" / "dir")) is not None  # walks up as capture does


def _prompt(repo: Path, session: str, prompt: str) -> HookEvent:
    return HookEvent("user_prompt", agent="generic", session_id=session, cwd=str(repo), prompt=prompt)


def test_a_deleted_file_takes_its_claim_out_of_the_digests_and_restoring_brings_it_back(
    home: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deploy = make_memory(DEPLOY, origin=str(repo.resolve()), kind="decision", at=NOW - 86_400)
    elsewhere = make_memory(
        "Deploy the other service with `scripts/deploy.sh` too.",
        origin="/srv/other",
        kind="decision",
        at=NOW - 86_400,
    )
    with Store.open(home) as store:
        seed(store, deploy, elsewhere)
    question = "how do we deploy with scripts deploy.sh?"

    first = handle_event(_prompt(repo, "s1", question), home, NOW)
    assert first.count(deploy.id) == 1  # in the standing digest of the first turn

    (repo / "scripts" / "deploy.sh").unlink()
    forget_answers()  # a new hook process looks again
    gone = handle_event(_prompt(repo, "s2", question), home, NOW)
    assert deploy.id not in gone
    # Another project's claim is not checked against this checkout.
    assert elsewhere.id in gone
    noted = read_stale(home)
    assert noted[deploy.id]["root"] == str(repo.resolve()) and noted[deploy.id]["missing"] == ["scripts/deploy.sh"]
    diagnostics = json.loads((home / "last-recall.json").read_text(encoding="utf-8"))
    assert diagnostics["stale"] == [{"id": deploy.id, "origin": deploy.origin, "missing": ["scripts/deploy.sh"]}]

    (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    forget_answers()
    back = handle_event(_prompt(repo, "s3", question), home, NOW)
    assert back.count(deploy.id) == 1


def test_check_show_and_explain_say_what_is_stale(
    home: Path, repo: Path, cli_run, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    deploy = make_memory(DEPLOY, origin=str(repo.resolve()), kind="decision", at=NOW)
    plain = make_memory("Keep modules under four hundred lines.", origin=str(repo.resolve()), kind="preference", at=NOW)
    with Store.open(home) as store:
        seed(store, deploy, plain)
    monkeypatch.chdir(repo)
    (repo / "scripts" / "deploy.sh").unlink()

    listed = json.loads(cli_run("check", "--json").output)
    assert listed["root"] == str(repo.resolve()) and listed["checked"] == 2 and listed["naming"] == 1
    [item] = listed["stale"]
    assert item["id"] == deploy.id and item["missing"] == ["scripts/deploy.sh"]
    assert item["line"].startswith(f"stale: scripts/deploy.sh no longer exists in {repo.resolve()} (checked ")
    assert f"stale: scripts/deploy.sh no longer exists in {repo.resolve()}" in cli_run("check").output
    assert read_stale(home)[deploy.id]["origin"] == deploy.origin  # noted for the worker
    status = json.loads(cli_run("status", "--json").output)["checkout"]
    assert status["stale"] == [{"id": deploy.id, "missing": ["scripts/deploy.sh"]}]
    assert "1 of this project's claims name what its checkout no longer has" in cli_run("status").output

    shown = cli_run("show", deploy.id).output
    assert "checkout:     stale: scripts/deploy.sh no longer exists in" in shown
    explained = json.loads(cli_run("explain", "how do we deploy", "--claim", deploy.id, "--json").output)
    assert explained["claim"]["reason"] == "stale"
    session = json.loads(cli_run("explain", "--session-start", "--json").output)
    verdicts = {d["id"]: d["verdict"] for d in session["decisions"]}
    assert verdicts == {deploy.id: "stale", plain.id: "shown"}

    (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    assert json.loads(cli_run("check", "--json").output)["stale"] == []
    assert "present (checked" in cli_run("show", deploy.id).output
    elsewhere = cli_run("check", "--project", str(repo.parent), "--json")
    assert json.loads(elsewhere.output)["root"] is None


def test_check_refuses_a_missing_directory(home: Path, cli_run) -> None:  # type: ignore[no-untyped-def]
    refused = cli_run("check", "--project", os.path.join(str(home), "nowhere"))
    assert refused.exit_code == 2 and "is not a directory; give a directory of the project" in refused.output


def test_explain_session_start_refuses_a_query_or_a_project_alone(home: Path, cli_run, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for args in (("explain", "--project", str(home.parent)), ("explain", "why", "--session-start")):
        refused = cli_run(*args)
        assert refused.exit_code == 2 and "--session-start takes no QUERY" in refused.output, refused.output
    monkeypatch.setenv("MEMEVO_STANDING_DIGEST", "off")
    assert "the standing digest is off" in cli_run("explain", "--session-start", "--project", str(home.parent)).output
