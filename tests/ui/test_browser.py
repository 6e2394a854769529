"""`memevo ui` in a real headless chromium: open the printed address, search, open a memory,
forget it and undo that (memory.db as the CLI sees it changes and comes back), approve in
Review and see a turn's digest in Injections. Screenshots are kept as test artifacts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.hooks.entry import run_hook
from memory_core import clock
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.support.browser import artifacts_dir, chromium_page
from tests.support.processes import REPO, memevo_process
from tests.ui.learned import learn, model_claim

pytestmark = pytest.mark.slow


def _cli_json(*args: str) -> dict:
    result = memevo_process(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def seeded(store: Store) -> dict[str, str]:
    now = clock.now()
    old = make_memory("The staging deploy uses node 18 on the runners", at=now - 86_400 * 3)
    seed(store, old, make_memory("We prefer tabs over spaces in Makefiles", kind="preference", at=now - 86_400))
    new = model_claim("The staging deploy uses node 20 on the runners", source="a" * 24, at=now - 3_600)
    learn(store, new, replaced=old, source="a" * 24, at=now - 3_600)
    fresh = model_claim("Release builds are signed with the team GPG key", source="b" * 24, at=now - 60)
    learn(store, fresh, source="b" * 24, at=now - 60)
    return {"old": old.id, "new": new.id, "fresh": fresh.id}


@pytest.fixture
def turn(seeded: dict[str, str]) -> str:
    """One user turn whose digest the hook printed (the hook's own code, in this process)."""
    payload = {
        "schema": "memevo.hook/v1",
        "event": "user_prompt",
        "cwd": "/work/app",
        "session_id": "browser-turn",
        "prompt": "staging deploy node",
    }
    result = run_hook(json.dumps(payload).encode(), "user_prompt", None, clock.now())
    assert "node 20" in result.stdout, result
    return "browser-turn"


@pytest.fixture
def printed_url(home: Path, seeded: dict[str, str]) -> Iterator[str]:
    """`memevo ui --port 0 --no-browser` as a real process, and the address it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "ui", "--port", "0", "--no-browser"],
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})", line)
        assert match is not None, line
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_search_forget_undo_review_and_injections(
    printed_url: str, seeded: dict[str, str], turn: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    shots = artifacts_dir(tmp_path)
    with chromium_page(tmp_path / "profile") as page:
        page.goto(printed_url)
        expect(page.get_by_role("heading", name="Memories")).to_be_visible()
        assert "token" not in page.url  # the token left the address bar
        page.screenshot(path=str(shots / "memories-all.png"), full_page=True)

        page.keyboard.press("/")  # the keyboard reaches the search box
        search = page.get_by_label("Search")
        expect(search).to_be_focused()
        search.fill("staging deploy")
        search.press("Enter")
        hit = page.get_by_role("link", name=re.compile("The staging deploy uses node 20"))
        expect(hit).to_be_visible()
        page.screenshot(path=str(shots / "memories.png"), full_page=True)

        hit.click()
        expect(page.get_by_role("heading", name="Memory")).to_be_visible()
        expect(page.get_by_text("provisional: inferred by a model")).to_be_visible()
        page.screenshot(path=str(shots / "memory.png"), full_page=True)

        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Forget").click()
        notice = page.get_by_role("status")
        expect(notice).to_contain_text("forget: done")
        forget_event = re.search(r"event (\d+)", notice.inner_text())
        assert forget_event is not None
        assert _cli_json("show", seeded["new"])["status"] == "forgotten"

        page.get_by_role("button", name=f"Undo event {forget_event.group(1)}").click()
        expect(page.get_by_role("status")).to_contain_text(f"undid event {forget_event.group(1)}")
        assert _cli_json("show", seeded["new"])["status"] == "active"

        page.get_by_role("link", name="Review").click()
        expect(page.get_by_role("heading", name="Review")).to_be_visible()
        pending = {item["claim"]["id"] for item in _cli_json("review")["items"]}
        assert pending == {seeded["new"], seeded["fresh"]}
        page.screenshot(path=str(shots / "review.png"), full_page=True)
        page.get_by_role("region", name=f"new {seeded['fresh']}").get_by_role("button", name="Approve").click()
        expect(page.get_by_role("status")).to_contain_text("approved 1 change")
        assert {item["claim"]["id"] for item in _cli_json("review")["items"]} == {seeded["new"]}

        page.get_by_role("link", name="Injections").click()
        # The session's first turn gave its standing digest too: a row of its own (docs/standing.md).
        rows = page.get_by_role("row", name=re.compile(turn))
        expect(rows.filter(has=page.get_by_role("cell", name="standing", exact=True))).to_have_count(1)
        row = rows.filter(has=page.get_by_role("cell", name="digest", exact=True))
        expect(row).to_contain_text("digest")
        expect(row.get_by_role("link", name=seeded["new"][:8])).to_be_visible()
        page.screenshot(path=str(shots / "injections.png"), full_page=True)

        for name in ("Queue", "Learning", "Charts"):
            page.get_by_role("link", name=name, exact=True).click()
            expect(page.get_by_role("heading", name=name)).to_be_visible()
        expect(page.get_by_role("img", name="Claims learned per day, by kind")).to_be_visible()
        page.screenshot(path=str(shots / "charts.png"), full_page=True)
    assert (shots / "memories.png").stat().st_size > 1_000
