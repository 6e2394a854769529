"""The hook path's module code kept in one file (cli/module_cache.py): a module served from it
is the module the import system would make, and a changed, moved or damaged source, or a
damaged file, only means importing as usual."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.processes import REPO

pytestmark = pytest.mark.sqlite_only  # the files of one machine's hook processes, whatever the store

# A process that imports a package the way a hook does: preload, import, save; it prints
# what each module's loader was, the modules' values and files, and how many were saved.
_IMPORTER = """
import importlib, inspect, json, sys
sys.path.insert(0, {root!r})
from cli import module_cache
loaded = module_cache.preload({cache!r})
names = {names!r}
modules = [importlib.import_module(name) for name in names]
report = {{
    "loaded": loaded,
    "loaders": {{m.__name__: type(m.__loader__).__name__ for m in modules}},
    "values": {{m.__name__: m.VALUE for m in modules}},
    "files": {{m.__name__: [m.__file__, m.__spec__.origin, m.__cached__] for m in modules}},
    "path": list(sys.modules["pkg.sub"].__path__),
    "source": inspect.getsource(sys.modules["pkg.sub"]),
    "saved": module_cache.save({cache!r}),
}}
print(json.dumps(report))
"""


def make_package(root: Path, alpha: str = "1", beta: str = "2") -> None:
    sub = root / "pkg" / "sub"
    sub.mkdir(parents=True, exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("VALUE = 0\n")
    (root / "pkg" / "alpha.py").write_text(f"VALUE = {alpha}\n")
    (sub / "__init__.py").write_text("from pkg.sub.beta import VALUE as BETA\nVALUE = 'sub'\n")
    (sub / "beta.py").write_text(f"VALUE = {beta}\n")


NAMES = ("pkg.alpha", "pkg.sub", "pkg.sub.beta")


def run(root: Path, cache: Path, names: tuple[str, ...] = NAMES) -> dict:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    code = _IMPORTER.format(root=str(root), cache=str(cache), names=list(names))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(REPO), timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def cache_file(cache: Path) -> Path:
    (found,) = cache.glob("modules.*.marshal")
    return found


def stored_once(tmp_path: Path) -> Path:
    """The package made under ``src/`` and imported once, its code stored in ``cache/``; the cache dir."""
    make_package(tmp_path / "src")
    cache = tmp_path / "cache"
    run(tmp_path / "src", cache)
    return cache


def write_index(path: Path, index: object, code: bytes = b"") -> None:
    """A cache file holding ``index`` and ``code`` after it, as module_cache lays it out."""
    import marshal

    from cli import module_cache

    packed = marshal.dumps(index)
    path.write_bytes(module_cache._MAGIC + len(packed).to_bytes(4, "little") + packed + code)


def test_a_module_from_the_file_is_the_module_the_import_system_makes(tmp_path: Path) -> None:
    make_package(tmp_path / "src")
    cache = tmp_path / "cache"
    first = run(tmp_path / "src", cache)
    assert first["loaded"] == 0 and first["saved"] == 3  # the submodules; pkg itself is top-level
    assert set(first["loaders"].values()) == {"_RecordingLoader"}
    assert stat.S_IMODE(cache_file(cache).stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700

    second = run(tmp_path / "src", cache)
    assert second["loaded"] == 3 and second["saved"] == 0  # nothing new: the file is left alone
    assert set(second["loaders"].values()) == {"_StoredLoader"}
    for key in ("values", "files", "path", "source"):
        assert second[key] == first[key], key
    assert second["values"] == {"pkg.alpha": 1, "pkg.sub": "sub", "pkg.sub.beta": 2}
    alpha_file, alpha_origin, alpha_cached = second["files"]["pkg.alpha"]
    assert alpha_file == alpha_origin == str(tmp_path / "src" / "pkg" / "alpha.py")
    assert alpha_cached.endswith(".pyc") and "__pycache__" in alpha_cached
    assert second["path"] == [str(tmp_path / "src" / "pkg" / "sub")]


def test_a_changed_source_is_imported_again_and_its_new_code_stored(tmp_path: Path) -> None:
    cache = stored_once(tmp_path)
    alpha = tmp_path / "src" / "pkg" / "alpha.py"
    before = alpha.stat().st_mtime_ns
    alpha.write_text("VALUE = 11\n")  # same size: only the modification time tells
    os.utime(alpha, ns=(before + 1_000_000, before + 1_000_000))

    changed = run(tmp_path / "src", cache)
    assert changed["values"]["pkg.alpha"] == 11
    assert changed["loaders"] == {
        "pkg.alpha": "_RecordingLoader",
        "pkg.sub": "_StoredLoader",
        "pkg.sub.beta": "_StoredLoader",
    }
    assert changed["saved"] == 1

    again = run(tmp_path / "src", cache)
    assert again["values"]["pkg.alpha"] == 11 and set(again["loaders"].values()) == {"_StoredLoader"}

    (tmp_path / "src" / "pkg" / "sub" / "beta.py").write_text("VALUE = 'a longer value'\n")  # size differs
    assert run(tmp_path / "src", cache)["values"]["pkg.sub.beta"] == "a longer value"


def test_the_same_names_elsewhere_are_not_served_the_stored_code(tmp_path: Path) -> None:
    """Another copy of the package (another checkout sharing the state dir) gets its own code."""
    make_package(tmp_path / "one", alpha="1", beta="2")
    make_package(tmp_path / "two", alpha="101", beta="102")
    cache = tmp_path / "cache"
    run(tmp_path / "one", cache)
    other = run(tmp_path / "two", cache)
    assert other["values"] == {"pkg.alpha": 101, "pkg.sub": "sub", "pkg.sub.beta": 102}
    assert set(other["loaders"].values()) == {"_RecordingLoader"}
    assert run(tmp_path / "one", cache)["values"]["pkg.alpha"] == 1


def test_a_removed_source_is_not_served(tmp_path: Path) -> None:
    cache = stored_once(tmp_path)
    (tmp_path / "src" / "pkg" / "alpha.py").unlink()
    code = f"""
import sys
sys.path.insert(0, {str(tmp_path / "src")!r})
from cli import module_cache
module_cache.preload({str(cache)!r})
try:
    import pkg.alpha
except ModuleNotFoundError:
    print("missing")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert result.stdout.strip() == "missing", result.stderr


def test_a_damaged_file_means_importing_as_usual(tmp_path: Path) -> None:
    cache = stored_once(tmp_path)
    path = cache_file(cache)
    whole = path.read_bytes()

    path.write_bytes(b"not a module cache at all")
    damaged = run(tmp_path / "src", cache)
    assert damaged["loaded"] == 0 and damaged["values"]["pkg.alpha"] == 1
    assert damaged["saved"] == 3  # written again, whole
    assert run(tmp_path / "src", cache)["loaded"] == 3

    path.write_bytes(whole[: len(whole) - 5])  # the last module's code cut short
    cut = run(tmp_path / "src", cache)
    assert cut["values"] == {"pkg.alpha": 1, "pkg.sub": "sub", "pkg.sub.beta": 2}
    assert "_RecordingLoader" in cut["loaders"].values() and cut["saved"] >= 1
    assert set(run(tmp_path / "src", cache)["loaders"].values()) == {"_StoredLoader"}


def test_a_hook_keeps_its_modules_and_the_next_hook_uses_them(tmp_path: Path) -> None:
    """Where bytecode is not written the file is in the state dir's cache/, as the regex cache."""
    home = tmp_path / "state"
    home.mkdir()
    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test",
        "event": "turn_end",
        "session_id": "module-cache",
        "cwd": str(tmp_path),
        "user_messages": ["remember that the build uses make"],
    }
    code = """
import sys
sys.argv = ["memevo", "hook", "turn_end"]
from cli.main import main
try:
    main()
except SystemExit:
    pass
loaders = {n: type(getattr(m, "__loader__", None)).__name__ for n, m in list(sys.modules.items())}
stored = sorted(n for n, kind in loaders.items() if kind == "_StoredLoader")
sys.stderr.write("STORED " + " ".join(stored) + "\\n")
"""
    env = {**os.environ, "MEMEVO_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}

    def hook(session: str) -> list[str]:
        result = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps({**payload, "session_id": session}),
            capture_output=True,
            text=True,
            env=env,
            cwd=str(REPO),
            timeout=60,
        )
        assert result.returncode == 0 and result.stdout == "", result.stderr
        (line,) = [line for line in result.stderr.splitlines() if line.startswith("STORED")]
        return line.split()[1:]

    assert hook("first") == []
    kept = cache_file(home / "cache")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    written = kept.stat().st_mtime_ns
    time.sleep(0.01)
    served = hook("second")
    assert "cli.hooks.entry" in served and "memory_core.capture.turn" in served and len(served) > 30
    assert kept.stat().st_mtime_ns == written  # nothing new: not written again


def stored_names(cache: Path) -> set[str]:
    from cli import module_cache

    return set(module_cache._current_blobs(str(cache_file(cache))))


def test_a_copy_that_keeps_the_modification_time_is_not_served_the_old_code(tmp_path: Path) -> None:
    """`cp -p`, `rsync -a`, `tar`: same size and modification time, another file or a new
    change time; the new code runs."""
    cache = stored_once(tmp_path)
    alpha = tmp_path / "src" / "pkg" / "alpha.py"
    stamp = alpha.stat().st_mtime_ns
    copy = tmp_path / "src" / "pkg" / "alpha.new"
    copy.write_text("VALUE = 7\n")
    os.utime(copy, ns=(stamp, stamp))
    os.replace(copy, alpha)  # another inode, the old modification time and size
    assert alpha.stat().st_mtime_ns == stamp
    assert run(tmp_path / "src", cache)["values"]["pkg.alpha"] == 7

    run(tmp_path / "src", cache)  # stored again
    stamp = alpha.stat().st_mtime_ns
    alpha.write_text("VALUE = 8\n")  # the same inode, rewritten in place, its time put back
    os.utime(alpha, ns=(stamp, stamp))
    assert run(tmp_path / "src", cache)["values"]["pkg.alpha"] == 8


def test_a_package_now_found_first_wins_over_the_stored_module(tmp_path: Path) -> None:
    cache = stored_once(tmp_path)
    package = tmp_path / "src" / "pkg" / "alpha"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 'the package'\n")
    assert run(tmp_path / "src", cache)["values"]["pkg.alpha"] == "the package"


def test_stored_code_of_another_module_is_not_run(tmp_path: Path) -> None:
    """Entries pointing at each other's code (a damaged index) are imported as usual."""
    import marshal

    cache = stored_once(tmp_path)
    path = cache_file(cache)
    data = path.read_bytes()
    base = 8 + int.from_bytes(data[4:8], "little")
    index = marshal.loads(data[8:base])
    alpha, beta = index["pkg.alpha"], index["pkg.sub.beta"]
    index["pkg.alpha"] = (*alpha[:3], *beta[3:])
    index["pkg.sub.beta"] = (*beta[:3], *alpha[3:])
    write_index(path, index, data[base:])
    swapped = run(tmp_path / "src", cache)
    assert swapped["values"] == {"pkg.alpha": 1, "pkg.sub": "sub", "pkg.sub.beta": 2}
    assert swapped["loaders"]["pkg.alpha"] == swapped["loaders"]["pkg.sub.beta"] == "_RecordingLoader"


def test_an_index_of_the_wrong_shape_costs_the_hook_nothing(tmp_path: Path) -> None:
    cache = stored_once(tmp_path)
    write_index(cache_file(cache), {"pkg.alpha": {"odd": 1}, "pkg.sub.beta": 3})
    odd = run(tmp_path / "src", cache)
    assert odd["values"] == {"pkg.alpha": 1, "pkg.sub": "sub", "pkg.sub.beta": 2}
    assert set(run(tmp_path / "src", cache)["loaders"].values()) == {"_StoredLoader"}  # written anew


def test_a_removed_module_leaves_the_file_at_the_next_write(tmp_path: Path) -> None:
    make_package(tmp_path / "src")
    (tmp_path / "src" / "pkg" / "gamma.py").write_text("VALUE = 3\n")
    cache = tmp_path / "cache"
    run(tmp_path / "src", cache, (*NAMES, "pkg.gamma"))
    assert "pkg.gamma" in stored_names(cache)
    (tmp_path / "src" / "pkg" / "gamma.py").unlink()
    (tmp_path / "src" / "pkg" / "alpha.py").write_text("VALUE = 'changed'\n")  # something to write
    # pkg.alpha and pkg.sub are written again (the directory pkg/, where both are found, changed)
    assert run(tmp_path / "src", cache)["saved"] == 2
    assert stored_names(cache) == set(NAMES)


def test_frozen_modules_stay_the_frozen_importers(tmp_path: Path) -> None:
    code = f"""
from cli import module_cache
module_cache.preload({str(tmp_path / "cache")!r})
import __phello__.spam as spam
print(type(spam.__loader__).__name__ if not isinstance(spam.__loader__, type) else spam.__loader__.__name__)
print(module_cache.save({str(tmp_path / "cache")!r}))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["FrozenImporter", "0"]  # found frozen, nothing recorded


def test_each_installation_keeps_its_own_file_in_the_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two installations sharing one state dir without bytecode (two checkouts, a checkout and
    an installed copy) each name their own file there, by a key that is the same in every
    process; in the package's own ``__pycache__`` the file is that installation's already."""
    from cli import module_cache

    state_cache = str(tmp_path / "state" / "cache")
    first, second = tmp_path / "checkout-1", tmp_path / "checkout-2"
    first.mkdir()
    second.mkdir()
    monkeypatch.setattr(module_cache, "_ROOT", str(first))
    one = module_cache.cache_path(state_cache)
    monkeypatch.setattr(module_cache, "_ROOT", str(second))
    other = module_cache.cache_path(state_cache)
    assert one is not None and other is not None and one != other
    assert Path(one).parent == Path(other).parent == Path(state_cache)
    assert module_cache.installation_key(str(first)) in one
    own = module_cache.cache_path(module_cache._PACKAGE_CACHE)
    monkeypatch.setattr(module_cache, "_ROOT", str(first))
    assert module_cache.cache_path(module_cache._PACKAGE_CACHE) == own
    # The key of another process (another hash seed) is the same.
    probe = "from cli import module_cache; print(module_cache.installation_key(" + repr(str(first)) + "))"
    for seed in ("1", "2"):
        result = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=str(REPO),
            timeout=60,
            check=True,
        )
        assert result.stdout.strip() == module_cache.installation_key(str(first))


_SAVER = """
import sys
sys.path.insert(0, {root!r})
from cli import module_cache
module_cache._ROOT = {installation!r}
loaded = module_cache.preload({cache!r})
import pkg.alpha
print(loaded, module_cache.save({cache!r}))
"""


def test_one_installation_s_file_is_not_the_other_s_and_abandoned_files_go(tmp_path: Path) -> None:
    """What one installation saved in the state dir's cache/ is read back by it and not by
    another; writing drops the file named before installations were told apart and other
    installations' files left unwritten for 30 days."""
    make_package(tmp_path / "src")
    cache = tmp_path / "state" / "cache"
    cache.mkdir(parents=True)
    from cli import module_cache

    prefix = module_cache._prefix()
    assert prefix is not None
    legacy = cache / f"{prefix}.marshal"
    legacy.write_bytes(b"old")
    abandoned = cache / f"{prefix}.0123456789abcdef.marshal"
    abandoned.write_bytes(b"gone")
    old = time.time() - module_cache.ABANDONED_SECONDS - 60
    os.utime(abandoned, (old, old))
    recent = cache / f"{prefix}.fedcba9876543210.marshal"
    recent.write_bytes(b"in use")

    def saver(installation: Path) -> list[int]:
        code = _SAVER.format(root=str(tmp_path / "src"), installation=str(installation), cache=str(cache))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(REPO))
        assert result.returncode == 0, result.stderr
        return [int(n) for n in result.stdout.split()]

    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    assert saver(first) == [0, 1]  # pkg.alpha stored (a top-level module never is)
    assert saver(second) == [0, 1]  # its own file: nothing of the first one's to read
    assert saver(first) == [1, 0]  # read back, nothing new
    assert not legacy.exists() and not abandoned.exists() and recent.exists()
