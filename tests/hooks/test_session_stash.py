"""The per-session prompt stash: private, atomic, bounded, redacted and pruned."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cli.hooks import session_stash
from cli.hooks.session_stash import (
    MAX_PROMPT_BYTES,
    PRUNE_EVERY,
    STASH_TTL,
    forget_session,
    prompt_digest,
    read_prompt,
    stash_path,
    write_prompt,
)

NOW = 1_800_000_000.0


def test_round_trip_is_private_and_leaves_no_temp_files(home: Path) -> None:
    assert write_prompt(home, "sess", "  remember that x  ", "p1", NOW)
    stash = read_prompt(home, "sess")
    assert stash is not None
    assert (stash.prompt, stash.prompt_id, stash.at) == ("  remember that x  ", "p1", NOW)
    assert stash.prompt_digest == prompt_digest("remember that x")
    path = stash_path(home, "sess")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.startswith(".pruned")) == [path.name]
    write_prompt(home, "sess", "second", None, NOW)
    assert read_prompt(home, "sess").prompt == "second"  # replaced, one file per session
    forget_session(home, "sess")
    assert read_prompt(home, "sess") is None
    forget_session(home, "sess")  # twice is fine


def test_the_prompt_is_bounded_and_secrets_are_redacted(home: Path) -> None:
    secret = "sk-ant-" + "a" * 40
    write_prompt(home, "s", f"use key {secret} " + "é" * 40_000, None, NOW)
    stash = read_prompt(home, "s")
    assert stash is not None and secret not in stash.prompt and "[REDACTED]" in stash.prompt
    assert len(stash.prompt.encode("utf-8")) <= MAX_PROMPT_BYTES


def test_unwritable_or_broken_stashes_cost_only_the_fallback(home: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert write_prompt(blocker, "s", "p", None, NOW) is False
    assert read_prompt(blocker, "s") is None
    home.mkdir(parents=True)
    path = stash_path(home, "s")
    path.parent.mkdir()
    for junk in ("not json", "[1]", '{"prompt": 5, "prompt_digest": "d", "at": 1}', '{"prompt": "p"}'):
        path.write_text(junk)
        assert read_prompt(home, "s") is None


def test_old_stashes_are_pruned_at_most_once_an_hour(home: Path) -> None:
    write_prompt(home, "old", "p", None, NOW)
    old = stash_path(home, "old")
    os.utime(old, (NOW - STASH_TTL - 10, NOW - STASH_TTL - 10))
    write_prompt(home, "new", "p", None, NOW + 60)  # pruned within the hour already: kept
    assert old.exists()
    write_prompt(home, "newer", "p", None, NOW + PRUNE_EVERY + 1)
    assert not old.exists()
    assert stash_path(home, "new").exists() and stash_path(home, "newer").exists()


def test_the_file_name_does_not_reveal_the_session(home: Path) -> None:
    path = stash_path(home, "56190f3c-58d2-4582-8686-30cf128cb449")
    assert path.parent.name == session_stash.SESSIONS_DIR and len(path.stem) == 24 and "56190f3c" not in path.name
