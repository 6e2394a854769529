"""A module the hook entry defers runs only when used, and is then the real module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.processes import REPO


def run_fresh(code: str) -> str:
    """``code`` in a new interpreter (whose ``inspect`` and ``copy`` are not imported yet)."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_deferred_module_runs_on_first_use_and_is_the_real_module() -> None:
    out = run_fresh(
        "import sys\n"
        "from cli.hooks.deferred_modules import defer, is_loaded\n"
        "assert 'inspect' not in sys.modules\n"
        "assert defer('inspect') and 'inspect' in sys.modules and not is_loaded('inspect')\n"
        "import dataclasses, inspect\n"  # dataclasses imports it at its top: still not run
        "@dataclasses.dataclass(frozen=True)\n"
        "class Documented:\n"
        "    '''A docstring: dataclasses reads no signature.'''\n"
        "    x: int = 1\n"
        "assert Documented() == Documented(1) and not is_loaded('inspect')\n"
        "from inspect import signature\n"  # first use
        "assert is_loaded('inspect') and sys.modules['inspect'] is inspect\n"
        "assert signature is inspect.signature and inspect.isfunction(signature)\n"
        "print(signature(lambda a, b=2: None))\n"
    )
    assert out == "(a, b=2)"


def test_a_dataclass_without_a_docstring_loads_inspect_and_still_works() -> None:
    out = run_fresh(
        "from cli.hooks.deferred_modules import defer, is_loaded\n"
        "defer('inspect'); defer('copy')\n"
        "import copy, dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Plain:\n"
        "    x: int\n"
        "print(Plain.__doc__, is_loaded('inspect'), copy.deepcopy([Plain(1)])[0].x, is_loaded('copy'))\n"
    )
    assert out == "Plain(x: int) True 1 True"


def test_only_what_is_not_imported_yet_and_is_a_plain_module_is_deferred() -> None:
    out = run_fresh(
        "import json, sys\n"
        "from cli.hooks.deferred_modules import defer, is_loaded\n"
        "print(defer('json'), defer('email'), defer('no_such_module_memevo'), 'email' in sys.modules,\n"
        "      is_loaded('json'), is_loaded('no_such_module_memevo'),\n"
        "      defer('xml.string'), 'xml.string' in sys.modules)\n"
    )
    # json: imported already; email: a package; the next: nowhere to be found; a dotted name is
    # a submodule, never deferred (the top-level search would find ``string`` for "xml.string").
    assert out == "False False False False True False False False"


def test_the_hook_entry_defers_inspect_and_copy() -> None:
    from cli.hooks.deferred_modules import HOOK_DEFERRED

    assert HOOK_DEFERRED == ("inspect", "copy")
    out = run_fresh(
        "import sys\n"
        "sys.argv = ['memevo', 'hook', '--help']\n"  # left to click, which loads inspect for real
        "from cli.main import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "import inspect\n"
        "print(inspect.isfunction(main))\n"
    )
    assert out.endswith("True")


def test_a_deferred_module_that_fails_raises_on_use_and_is_not_kept(tmp_path: Path) -> None:
    (tmp_path / "memevo_broken_module.py").write_text("VALUE = 1\nraise RuntimeError('broken')\n", encoding="utf-8")
    out = run_fresh(
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from cli.hooks.deferred_modules import defer\n"
        "assert defer('memevo_broken_module')\n"
        "import memevo_broken_module\n"
        "try:\n"
        "    memevo_broken_module.VALUE\n"
        "except RuntimeError as exc:\n"
        "    print(exc, 'memevo_broken_module' in sys.modules)\n"
    )
    assert out == "broken False"
