"""The web page shows the standing digest of the current project on the Memories page, marks
claims its checkout has outgrown with a stale badge, and filters by it; a memory's own page says
what is missing. The page serves from the project's directory, as `memevo ui` started there."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.ui.server_fixture import request, running_ui, sign_in

DEPLOY = "Deploy with `scripts/deploy.sh` from a clean checkout."
PNPM = "Use pnpm, not npm, for packages."


def test_standing_digest_stale_badge_and_filter(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "shop"
    (repo / "scripts").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    origin = str(repo.resolve())
    now = clock.now()
    deploy = make_memory(DEPLOY, origin=origin, kind="decision", at=now - 60)
    pnpm = make_memory(PNPM, origin=origin, kind="preference", at=now - 60)
    with Store.open(home) as store:
        seed(store, deploy, pnpm)
    monkeypatch.chdir(repo)

    with running_ui(home) as server:
        cookie = sign_in(server)

        def page(path: str) -> str:
            answer = request(server, "GET", path, headers={"Cookie": cookie})
            assert answer.status == 200, (path, answer.status)
            return answer.body

        listing = page("/")
        standing = listing[listing.index("Standing digest") : listing.index("</section>")]
        assert pnpm.id in standing and deploy.id not in standing  # the script is missing: stale
        assert f'title="stale: scripts/deploy.sh no longer exists in {origin}' in listing
        only_stale = page("/?checkout=stale")
        assert deploy.id in only_stale and pnpm.id not in only_stale.split("Standing digest")[1].split("</section>")[1]
        assert "no longer exists" in page(f"/memory/{deploy.id}")

        (repo / "scripts" / "deploy.sh").write_text("#!/bin/sh\n", encoding="utf-8")
        listing = page("/")
        standing = listing[listing.index("Standing digest") : listing.index("</section>")]
        assert pnpm.id in standing and deploy.id in standing
        assert 'class="tag stale"' not in listing
        assert deploy.id not in page("/?checkout=stale").split("</section>")[1]
        refused = request(server, "GET", "/?checkout=maybe", headers={"Cookie": cookie})
        assert refused.status == 400 and "unknown checkout" in refused.body
