"""Stored regular-expression programs give the modules the very patterns compiling gives, and
a missing, damaged or foreign cache file only means compiling as usual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.processes import REPO

# Adds to DIR the programs of everything the hook path compiles (and every redaction pattern,
# each compiled lazily, on first use) into DIR.
_WRITE = """
import sys
sys.dont_write_bytecode = False
from cli import regex_cache
regex_cache.preload(DIR)
import memory_core.recall.service, memory_core.capture.turn, cli.hooks.entry
from memory_core.privacy.sanitize import _STEPS, redact_secrets
redact_secrets("password: hunter2Xyz api_key=abc https://u:p@h Authorization: Bearer abcdefghijklmnop")
for pattern, _, _ in _STEPS:
    pattern.compiled
print(regex_cache.save(DIR))
"""

# Seeds re's cache from DIR, imports the same modules and compares every seeded pattern with
# a fresh compilation: same program, and the same matches on a mixed sample.
_CHECK = """
import json, re, sys
from re import _compiler
from cli import regex_cache
loaded = regex_cache.preload(DIR)
import memory_core.recall.service, memory_core.capture.turn, cli.hooks.entry
from memory_core.privacy.sanitize import redact_secrets
from memory_core.text import tokenize
sample = ("Please remember that the staging DB (数据库) runs on port 5433; password: hunter2Xyz, see "
          "/srv/app/config.py and https://u:p@example.com/x?y=1 -- what did we decide about it? 密码是abc123XYZ "
          "Authorization: Bearer abcdefghijklmnop1234 export API_KEY=Zq8mW4tKp2Lx9Vb7 it's fine \\n\\t end")
differences = []
for (kind, pattern, flags), seeded in list(re._cache.items()):
    if (pattern, flags) not in regex_cache._loaded:
        continue
    fresh = _compiler.compile(pattern, flags)
    same = (seeded.flags, seeded.groups, seeded.groupindex) == (fresh.flags, fresh.groups, fresh.groupindex)
    for text in (sample, sample.upper(), sample.lower()):
        if not same:
            break
        same = [m.span() for m in seeded.finditer(text)] == [m.span() for m in fresh.finditer(text)]
    if not same:
        differences.append(pattern)
token = tokenize._TOKEN
print(json.dumps({"loaded": loaded, "differences": differences,
                  "token_seeded": (token.pattern, 0) in regex_cache._loaded and re.compile(token.pattern) is token}))
"""


def run(code: str, directory: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code.replace("DIR", repr(str(directory)))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_seeded_patterns_are_the_compiled_ones(tmp_path: Path) -> None:
    assert int(run(_WRITE, tmp_path)) > 40
    out = json.loads(run(_CHECK, tmp_path))
    assert out["loaded"] > 40 and out["differences"] == [] and out["token_seeded"], out
    assert int(run(_WRITE, tmp_path)) == 0  # nothing new the second time


def test_a_damaged_or_missing_file_means_compiling(tmp_path: Path) -> None:
    from cli import regex_cache

    assert regex_cache.preload(str(tmp_path)) == 0  # none yet
    path = regex_cache.cache_path(str(tmp_path))
    assert path is not None
    Path(path).write_bytes(b"\x00not marshal")
    assert regex_cache.preload(str(tmp_path)) == 0
    out = json.loads(run(_CHECK, tmp_path))
    assert out["loaded"] == 0 and out["differences"] == []


def test_nothing_is_written_beside_the_package_where_bytecode_would_not_be(tmp_path: Path) -> None:
    # The state dir takes the cache then (tests/unit/test_regex_cache_state_dir.py).
    code = _WRITE.replace("sys.dont_write_bytecode = False", "sys.dont_write_bytecode = True").replace(
        "print(regex_cache.save(DIR))",
        "import os\nprint(not (regex_cache.cache_directory() or '').startswith(os.path.dirname(regex_cache.__file__)))",
    )
    assert run(code, tmp_path) == "True"


def test_patterns_built_from_data_cannot_grow_the_file_without_bound(tmp_path: Path) -> None:
    code = _WRITE.replace(
        "print(regex_cache.save(DIR))",
        "import re, marshal\n"
        "for n in range(2 * regex_cache.MAX_ENTRIES):\n"
        "    re.search(re.escape(f'file-{n}.toml'), 'x')\n"
        "regex_cache.save(DIR)\n"
        "print(len(marshal.loads(open(regex_cache.cache_path(DIR), 'rb').read())), regex_cache.MAX_ENTRIES)",
    )
    stored, cap = map(int, run(code, tmp_path).split())
    assert stored == cap
    assert run(_WRITE, tmp_path) == "0"  # full: nothing more is added


def test_a_stored_program_becomes_a_pattern_only_when_asked_for(tmp_path: Path) -> None:
    """preload() makes no pattern object up front: one is made from its stored program the
    first time a module asks re for it (a capture hook uses about a third of the file)."""
    write = _WRITE.replace(
        "print(regex_cache.save(DIR))",
        "import re\nre.compile(r'never-asked-(\\d+)-by-a-hook', re.IGNORECASE)\nprint(regex_cache.save(DIR))",
    )
    assert int(run(write, tmp_path)) > 40
    check = """
import json, re
from cli import regex_cache
loaded = regex_cache.preload(DIR)
key = (r'never-asked-(\\d+)-by-a-hook', re.IGNORECASE.value)
before = (key in regex_cache._loaded, key in regex_cache._stored,
          any(k[1:] == key for k in re._cache))
made = re.compile(key[0], re.IGNORECASE)
after = (key in regex_cache._stored, re.compile(key[0], re.IGNORECASE) is made,
         [m.group(1) for m in made.finditer('NEVER-ASKED-42-BY-A-HOOK')])
print(json.dumps({"loaded": loaded, "before": before, "after": after}))
"""
    out = json.loads(run(check, tmp_path))
    assert out["loaded"] > 40
    assert out["before"] == [True, True, False]  # offered, not yet made
    assert out["after"] == [False, True, ["42"]]  # made once, cached, matching as compiled
