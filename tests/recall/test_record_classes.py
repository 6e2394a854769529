"""Recall's and the tokenizer's record classes, defined cheaply for the per-turn hook.

A named tuple with defaults is declared twice: a typed ``NamedTuple`` the type checker reads
(under ``TYPE_CHECKING``) and the ``namedtuple`` the hook defines at run time, whose fields
``typing`` does not compile one annotation string at a time (docs/hooks.md, "Cost"). The two
must hold the same fields in the same order with the same defaults. ``Candidate`` is a plain
slotted class that must construct, compare and print as the dataclass it replaces.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memory_core.recall.index import IndexedDoc
from memory_core.recall.rank import Candidate

STUBBED = {
    "memory_core.text.query_features": ["Term"],
    "memory_core.text.concepts": ["Concept"],
    "memory_core.recall.query_plan": ["QueryPlan"],
    "memory_core.recall.scoring": ["Evaluation"],
    "memory_core.recall.results": ["RecallResult"],
    "memory_core.recall.candidates": ["Retrieval"],
}


def typed_fields(module: ModuleType, name: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The fields and defaults of ``_{name}Fields`` as the type checker reads them."""
    tree = ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == f"_{name}Fields":
            assert [ast.unparse(b) for b in node.bases] == ["NamedTuple"]
            fields = [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            names = tuple(s.target.id for s in fields if isinstance(s.target, ast.Name))
            defaults = {
                s.target.id: eval(ast.unparse(s.value), vars(module))  # noqa: S307 - our own source
                for s in fields
                if s.value is not None and isinstance(s.target, ast.Name)
            }
            return names, defaults
    raise AssertionError(f"no typed fields for {name} in {module.__name__}")


@pytest.mark.parametrize("module_name", sorted(STUBBED))
def test_the_typed_fields_are_the_run_time_fields(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in STUBBED[module_name]:
        cls = getattr(module, name)
        names, defaults = typed_fields(module, name)
        assert cls._fields == names, name
        assert cls._field_defaults == defaults, name
        assert cls.__name__ == name and cls.__slots__ == ()
        instance = cls(*[f"v{i}" for i in range(len(names))])
        assert repr(instance).startswith(f"{name}(") and not hasattr(instance, "__dict__")
        assert instance._replace(**{names[0]: "x"})[0] == "x" and type(instance._replace()) is cls


def test_no_record_class_on_the_prompt_path_has_postponed_annotations() -> None:
    """A class-syntax ``NamedTuple`` under postponed annotations makes ``typing`` compile each field."""
    for module_name in (
        *STUBBED,
        "memory_core.recall.aging",
        "memory_core.recall.digest",
        "memory_core.recall.rows",
        "memory_core.recall.index",
        "memory_core.recall.engine",
        "memory_core.recall.expansion",
    ):
        module = importlib.import_module(module_name)
        tree = ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))
        for node in tree.body:  # module level only: the typed fields under TYPE_CHECKING are nested
            if isinstance(node, ast.ClassDef):
                assert "NamedTuple" not in [ast.unparse(b) for b in node.bases], (module_name, node.name)


def _doc() -> IndexedDoc:
    return IndexedDoc("a" * 24, "/o", "fact", "h", 1.0, 1.0, False, 1, "summary", "local", None, None, 5)


def test_candidate_constructs_compares_and_prints_as_its_dataclass() -> None:
    params = inspect.signature(Candidate).parameters
    assert tuple(params) == Candidate.__slots__
    reference = dataclasses.make_dataclass(
        "Candidate",
        [
            (n, object) if p.default is inspect.Parameter.empty else (n, object, dataclasses.field(default=p.default))
            for n, p in params.items()
        ],
        slots=True,
    )
    doc = _doc()
    mine = Candidate(doc, 2.0, ("a",), (), None, (1,), complete=True, coverage=0.5)
    theirs = reference(doc, 2.0, ("a",), (), None, (1,), complete=True, coverage=0.5)
    assert repr(mine) == repr(theirs)
    assert [getattr(mine, n) for n in params] == [getattr(theirs, n) for n in params]
    assert mine == Candidate(doc, 2.0, ("a",), (), alternatives=(1,), complete=True, coverage=0.5)
    assert mine != Candidate(doc, 2.0, ("a",), (), alternatives=(1,), complete=True, coverage=0.6)
    assert mine != theirs and (mine == ("a",)) is False
    assert Candidate.__hash__ is None and reference.__hash__ is None
    mine.rank = 3.0  # mutable, as selection needs
    assert mine.rank == 3.0
    with pytest.raises(AttributeError):
        mine.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        Candidate(doc, 2.0, ("a",))  # type: ignore[call-arg]
