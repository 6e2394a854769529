"""Code without docstrings (cli/code_docstrings.py), for the hook path's module-code file: on
every module of the project, only the docstrings change (to ``None``), nothing else."""

from __future__ import annotations

import ast
import types
from pathlib import Path

from cli.code_docstrings import without_docstrings
from tests.support.processes import REPO


def docstrings(source: str) -> list[str]:
    """Every module, class and function docstring of ``source``, as the compiler stores it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append(doc)
    return found


def changes(before: types.CodeType, after: types.CodeType) -> list[object]:
    """The constants that differ (each became ``None``), everything else checked equal."""
    assert before.co_code == after.co_code and before.co_names == after.co_names
    assert before.co_linetable == after.co_linetable and before.co_exceptiontable == after.co_exceptiontable
    assert (before.co_name, before.co_qualname, before.co_firstlineno) == (
        after.co_name,
        after.co_qualname,
        after.co_firstlineno,
    )
    assert len(before.co_consts) == len(after.co_consts)
    changed: list[object] = []
    for old, new in zip(before.co_consts, after.co_consts, strict=True):
        if isinstance(old, types.CodeType):
            changed += changes(old, new)
        elif old != new or type(old) is not type(new):
            assert new is None
            changed.append(old)
    return changed


def test_only_docstrings_change_in_every_module_of_the_project() -> None:
    sources = sorted(p for top in ("cli", "memory_core", "workers") for p in (REPO / top).rglob("*.py"))
    assert len(sources) > 100
    total = 0
    for path in sources:
        source = path.read_text(encoding="utf-8")
        code = compile(source, str(path), "exec", dont_inherit=True)
        removed = changes(code, without_docstrings(code))
        expected = docstrings(source)
        assert sorted(map(str, removed)) == sorted(expected), path
        total += len(removed)
    assert total > 1000  # the project documents its functions


def test_the_code_runs_as_before_without_its_docstrings(tmp_path: Path) -> None:
    source = '''"""Module doc."""
import sys
VALUE = "value"


class Thing:
    """Class doc."""

    def method(self) -> str:
        """Method doc."""
        return "Method doc."

    @property
    def name(self) -> str:
        return "plain"


def helper(x: int) -> int:
    """Helper doc."""
    assert x >= 0, "negative"
    return x + 1


LAMBDA = lambda: "lambda text"  # noqa: E731
'''
    code = compile(source, str(tmp_path / "sample.py"), "exec", dont_inherit=True)
    namespace: dict[str, object] = {"__name__": "sample"}
    exec(without_docstrings(code), namespace)
    thing = namespace["Thing"]()  # type: ignore[operator]
    assert namespace.get("__doc__") is None and type(thing).__doc__ is None
    assert namespace["helper"].__doc__ is None  # type: ignore[attr-defined]
    # The method returns its docstring's text: the one constant is loaded, so it stays.
    assert thing.method.__doc__ == "Method doc." and thing.method() == "Method doc."
    assert thing.name == "plain" and namespace["VALUE"] == "value"
    assert namespace["helper"](1) == 2 and namespace["LAMBDA"]() == "lambda text"  # type: ignore[operator]
    try:
        namespace["helper"](-1)  # type: ignore[operator]
    except AssertionError as exc:  # asserts stay, unlike python -OO
        assert str(exc) == "negative"
    else:
        raise AssertionError("the assert was removed")
