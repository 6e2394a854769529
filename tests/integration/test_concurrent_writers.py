"""Two real processes writing one database at once: nothing lost, no lock errors surface."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memory_core.store.engines.database import Store
from memory_core.store.schema.integrity import check_integrity
from tests.support.processes import REPO

WRITER = r"""
import sys
from pathlib import Path
from memory_core.store.tables.memories import put_memory
from memory_core.store.engines.database import Store
from tests.factories import make_memory

home, tag, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
with Store.open(home) as store:
    for i in range(n):
        with store.transaction() as conn:
            put_memory(conn, make_memory(f"{tag} writer fact number {i}", origin=f"/o/{tag}"))
print("done")
"""


def test_two_processes_write_concurrently_without_loss(home: Path) -> None:
    n = 250
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(home), tag, str(n)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("alpha", "beta")
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err.lower()
        assert out.strip() == "done"
    with Store.open(home) as store:
        counts = dict(store.conn.execute("SELECT origin, COUNT(*) FROM memories GROUP BY origin"))
        assert counts == {"/o/alpha": n, "/o/beta": n}
        assert check_integrity(store.conn)["ok"]
