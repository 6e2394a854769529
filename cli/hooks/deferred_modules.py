"""Standard-library modules the hook path imports but (almost) never uses, run on first use.

``dataclasses`` imports :mod:`inspect` (which brings ``ast``, ``dis``, ``tokenize`` and
``linecache``) and :mod:`copy` at its top, about 7 ms of every hook process, yet uses them
only for a class without a docstring (``inspect.signature`` writes one) and for
``asdict``/``deepcopy``. :func:`defer` binds the name in :data:`sys.modules` to the module
object the import system would create, with a module ``__getattr__`` (PEP 562) that runs the
module's code in that same object the first time anything it defines is read. Every
``import`` shares the one object and code that uses the module sees the real one, so
nothing can behave differently; a process that never uses it saves the import.
(:class:`importlib.util.LazyLoader` is no help here: ``import inspect`` reads the module's
``__spec__``, which makes a lazy module run at once.)

Only the hook entry (:func:`cli.main.main`) defers, before anything else is imported.
``tests/integration/test_hook_imports.py`` checks which paths never run the deferred
modules (capture loads no ``dataclasses`` at all) and
``tests/hooks/test_deferred_modules.py`` that a deferred module works.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

# Loaded by ``dataclasses`` at import; used by nothing a hook runs (every dataclass on the
# hook path has a docstring).
HOOK_DEFERRED: tuple[str, ...] = ("inspect", "copy")

_pending: set[str] = set()  # deferred and not run yet


def _bootstrap() -> Any:
    """The import system's own module, always loaded (``_frozen_importlib``): its
    ``_find_spec`` and ``module_from_spec`` are what ``importlib.util`` calls, without loading
    ``importlib`` and ``importlib.util`` into every hook process of an installation that does
    not start with them (a wheel's; an editable install's path hook does)."""
    bootstrap = sys.modules.get("_frozen_importlib")
    if bootstrap is None:  # pragma: no cover - another Python implementation
        import importlib._bootstrap as bootstrap
    return bootstrap


def defer(name: str) -> bool:
    """Bind ``name`` in :data:`sys.modules` to a module that runs on first attribute access;
    ``False`` (nothing changed) when it is already imported, a package or cannot be found."""
    if name in sys.modules or "." in name:  # top-level modules only: a submodule needs its parent imported
        return False
    try:
        bootstrap = _bootstrap()
        spec = bootstrap._find_spec(name, None)
        loader = spec.loader if spec is not None else None
        if spec is None or spec.submodule_search_locations is not None or not hasattr(loader, "exec_module"):
            return False
        module = bootstrap.module_from_spec(spec)
    except Exception:
        return False

    def load(attribute: str) -> object:
        if attribute == "__path__":  # asked by the import system; a plain module has none
            raise AttributeError(attribute)
        del module.__dict__["__getattr__"]
        _pending.discard(name)
        try:
            loader.exec_module(module)  # type: ignore[union-attr]
        except BaseException:
            sys.modules.pop(name, None)  # as a failed import leaves it: the next import tries again
            raise
        return getattr(module, attribute)

    module.__dict__["__getattr__"] = load
    sys.modules[name] = module
    _pending.add(name)
    return True


def is_loaded(name: str) -> bool:
    """Whether ``name`` has really run (not only been deferred)."""
    return name in sys.modules and name not in _pending
