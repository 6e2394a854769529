from __future__ import annotations

from pathlib import Path

import pytest

from tests.install.support import ClaudeSandbox, make_sandbox


@pytest.fixture(autouse=True)
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeSandbox:
    return make_sandbox(tmp_path, monkeypatch)
