"""Import direction, parsed with ``ast``: between the three packages, and between the
layers inside ``memory_core``; and the one clock seam."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.processes import REPO

FORBIDDEN = {
    "memory_core": {"huey", "click", "httpx", "openai", "requests", "urllib3", "aiohttp", "workers", "cli"},
    "workers": {"cli", "click"},
}

# Layers of memory_core, lowest first. A module may import its own layer, the foundations
# and the layers listed for it; nothing else inside memory_core.
FOUNDATIONS = {
    "clock",
    "errors",
    "ids",
    "paths",
    "config_file",
    "project",
    "config",
    "records",
    "evidence",
    "lazy_pattern",
    "model_providers",
    "privacy",  # sanitize, redaction, private_text, exclusion
    "files",  # durable_files, jsonl_log
}
LAYERS: dict[str, set[str]] = {
    # records names the source job columns; config validates the store and queue URLs
    "foundations": {"store.schema.columns", "store.engines.backend"},
    "text": set(),
    "store": {"text"},
    "capture": {"store", "text"},
    "jobs": {"store"},
    "recall": {"store", "text"},
    "consolidation": {"store", "text", "jobs"},
    "controls": {"store", "text"},
    "reports": {"store", "text", "jobs", "recall"},
}
# Modules of a layer that write memory: reports (read-only views) must import none of them.
WRITERS = {"store.tables.changes", "controls", "capture", "consolidation.apply"}


# The database drivers, and the only places in memory_core that may import them: the store's
# engines, its safekeeping of SQLite files, and doctor's own reading of a store.
DRIVERS = {"sqlite3", "_sqlite3", "psycopg", "psycopg_pool", "redis"}
DRIVER_PLACES = (
    "memory_core/store/engines/",
    "memory_core/store/safekeeping/",
    "memory_core/reports/database_state.py",
)
# memory_core's own top level: foundations only, and few of them (sub-packages group the rest).
TOP_LEVEL_MODULES = 12


def imported_modules(path: Path) -> set[str]:
    """Absolute module names imported anywhere in a file (top level, functions, TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def imported_roots(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imported_modules(path)}


def layer_of(module: str) -> str:
    """``memory_core.store.tables.memories`` -> ``store``; a top-level foundation -> ``foundations``."""
    parts = module.split(".")
    if len(parts) < 2:
        return "foundations"
    return "foundations" if parts[1] in FOUNDATIONS else parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def allowed(importer_layer: str, target: str) -> bool:
    target_layer = layer_of(target)
    if target_layer in (importer_layer, "foundations"):
        return True
    inner = target.removeprefix("memory_core.")
    return any(inner == rule or inner.startswith(rule + ".") for rule in LAYERS[importer_layer])


def layer_violations(files: list[Path]) -> dict[str, list[str]]:
    offenders: dict[str, list[str]] = {}
    for path in files:
        layer = layer_of(module_name(path))
        assert layer in LAYERS, f"{path}: unknown layer {layer!r}; add it to LAYERS"
        bad = sorted(
            name
            for name in imported_modules(path)
            if name.startswith("memory_core.") and _is_module(name) and not allowed(layer, name)
        )
        if bad:
            offenders[str(path.relative_to(REPO))] = bad
    return offenders


def _is_module(name: str) -> bool:
    """Only real modules and packages count (``from x import name`` also yields ``x.name``)."""
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_upward(package: str) -> None:
    files = sorted((REPO / package).rglob("*.py"))
    assert files, f"{package} has no modules"
    offenders = {
        str(path.relative_to(REPO)): sorted(imported_roots(path) & FORBIDDEN[package])
        for path in files
        if imported_roots(path) & FORBIDDEN[package]
    }
    assert offenders == {}


def driver_imports(paths: list[Path]) -> dict[str, list[str]]:
    """Files outside :data:`DRIVER_PLACES` that import a database driver, with the drivers."""
    found = {}
    for path in paths:
        rel = path.relative_to(REPO).as_posix()
        drivers = sorted(imported_roots(path) & DRIVERS)
        if drivers and not rel.startswith(DRIVER_PLACES):
            found[rel] = drivers
    return found


def test_only_the_engines_speak_to_a_driver() -> None:
    assert driver_imports(sorted((REPO / "memory_core").rglob("*.py"))) == {}


def test_driver_checker_sees_a_table_module_importing_sqlite3() -> None:
    probe = REPO / "memory_core" / "store" / "tables" / "_driver_probe.py"
    probe.write_text("import sqlite3\n")
    try:
        assert driver_imports([probe]) == {"memory_core/store/tables/_driver_probe.py": ["sqlite3"]}
    finally:
        probe.unlink()


def test_memory_core_top_level_stays_small() -> None:
    modules = sorted(p.name for p in (REPO / "memory_core").glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= TOP_LEVEL_MODULES, modules


@pytest.mark.parametrize("room", ["store", "capture"])
def test_a_room_is_grouped_by_concept(room: str) -> None:
    """No room of memory_core grows past a glance again: at most a dozen modules beside its
    sub-packages."""
    modules = [p for p in (REPO / "memory_core" / room).glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= TOP_LEVEL_MODULES, sorted(p.name for p in modules)


def test_layers_inside_memory_core_import_only_downward() -> None:
    assert layer_violations(sorted((REPO / "memory_core").rglob("*.py"))) == {}


def test_reports_import_nothing_that_writes() -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(
            name
            for name in imported_modules(path)
            if any(name.removeprefix("memory_core.").startswith(w) for w in WRITERS)
        )
        for path in sorted((REPO / "memory_core" / "reports").rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_recall_and_text_need_no_validation_library_at_import() -> None:
    for folder in ("recall", "text"):
        for path in sorted((REPO / "memory_core" / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
            roots = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
            roots |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
            assert "pydantic" not in roots and "memory_core.records" not in roots, path


def test_checker_sees_forbidden_imports(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import huey\nfrom click import echo\nfrom . import sibling\n")
    assert imported_roots(sample) == {"huey", "click"}


def test_layer_checker_sees_an_upward_import(tmp_path: Path) -> None:
    # A store module that imports a control is caught; one that imports text is not.
    store_dir = REPO / "memory_core" / "store"
    bad = store_dir / "_architecture_probe.py"
    bad.write_text("from memory_core.controls.manual import forget\nfrom memory_core.text.tokenize import features\n")
    try:
        assert layer_violations([bad]) == {"memory_core/store/_architecture_probe.py": ["memory_core.controls.manual"]}
    finally:
        bad.unlink()


# Calls that read the wall clock; conversions of a given timestamp (gmtime(at)) are fine.
_CLOCK_READS = {
    ("time", "time"),
    ("time", "time_ns"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
}
_NO_ARG_CLOCK_READS = {("time", "gmtime"), ("time", "localtime"), ("time", "ctime"), ("time", "asctime")}


def clock_reads(source: str) -> list[str]:
    """Wall-clock reads in ``source``: ``time.time()``, ``datetime.now()``, ``time.gmtime()``
    without an argument, ``time.strftime(fmt)`` without a time, and ``from time import time``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
            found += [f"from {node.module} import {a.name}" for a in node.names if a.name in ("time", "time_ns")]
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        owner_name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
        key = (owner_name, node.func.attr)
        if (
            key in _CLOCK_READS
            or (key in _NO_ARG_CLOCK_READS and not node.args)
            or (key == ("time", "strftime") and len(node.args) < 2)
        ):
            found.append(f"{owner_name}.{node.func.attr}() at line {node.lineno}")
    return found


def test_only_clock_reads_time() -> None:
    """Domain code reads the clock only through memory_core.clock."""
    offenders = {
        str(path.relative_to(REPO)): reads
        for path in sorted((REPO / "memory_core").rglob("*.py"))
        if path.name != "clock.py" and (reads := clock_reads(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_clock_checker_sees_hidden_reads() -> None:
    sample = (
        "import time, datetime\n"
        "a = time.strftime('%Y', time.gmtime())\n"
        "b = datetime.datetime.now()\n"
        "c = time.gmtime(12.0)\n"
        "d = time.strftime('%Y')\n"
    )
    assert sorted(clock_reads(sample)) == [
        "datetime.now() at line 3",
        "time.gmtime() at line 2",
        "time.strftime() at line 5",
    ]


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports, counting every kind of import (the benches'
    too: a newcomer reads them as they read the code)."""
    packages = ("memory_core", "workers", "cli", "bench")
    graph: dict[str, set[str]] = {}
    for package in packages:
        for path in sorted((REPO / package).rglob("*.py")):
            name = module_name(path)
            graph[name] = {
                target
                for target in imported_modules(path)
                if target.split(".")[0] in packages and target != name and _is_module(target)
            }
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in graph:
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    """Not even through imports inside functions: the store's index maintenance never reads
    claim rows itself, and the Huey app never imports its tasks."""
    assert cycles(import_graph()) == []


def test_cycle_checker_sees_the_cycles_this_layout_broke() -> None:
    old = {
        "memory_core.memories": {"memory_core.recall.index"},
        "memory_core.recall.index": {"memory_core.memories", "memory_core.recall.tokenize"},
        "memory_core.recall.tokenize": set(),
        "workers.app": {"workers.tasks"},
        "workers.tasks": {"workers.app"},
    }
    assert cycles(old) == [["memory_core.memories", "memory_core.recall.index"], ["workers.app", "workers.tasks"]]
