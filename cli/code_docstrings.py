"""Compiled code without its docstrings, for the hook path's module-code file.

A hook never reads a docstring (no ``help``, no ``__doc__``; the click commands, whose help
is their docstrings, are never served from that file), yet unmarshalling them is about a
sixth of what loading the hook path's code costs. :func:`without_docstrings` gives the same
code with each docstring replaced by ``None``, as ``python -OO`` would leave ``__doc__`` but
with nothing else changed (asserts stay; the instructions, names, line tables and every other
constant are the ones the interpreter compiled):

* a function's docstring is its code's first constant, which no instruction loads (the
  interpreter reads it from there when it makes the function);
* a module's or a class's docstring is a constant loaded once, right before its body stores
  ``__doc__``.

A constant some instruction also loads elsewhere is left as it is. The standard ``opcode``
module names the instructions: loaded only when a hook writes that file (its first hooks
after an install or an upgrade), never when it reads it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from types import CodeType


def without_docstrings(code: CodeType) -> CodeType:
    """``code`` and the code nested in it with every docstring ``None`` (see the module)."""
    import opcode

    loads_constant = frozenset(opcode.hasconst)
    return _strip(code, loads_constant, opcode.opmap["STORE_NAME"], opcode.opmap["EXTENDED_ARG"])


def _strip(code: CodeType, loads_constant: frozenset[int], store_name: int, extended: int) -> CodeType:
    consts = list(code.co_consts)
    uses: dict[int, int] = {}
    doc_stores: list[int] = []  # constants loaded right before ``STORE_NAME __doc__``
    raw = code.co_code
    previous_const = None
    prefix = 0
    for i in range(0, len(raw), 2):
        op, arg = raw[i], raw[i + 1] | prefix
        prefix = arg << 8 if op == extended else 0
        if op == extended:
            continue
        if op in loads_constant:
            uses[arg] = uses.get(arg, 0) + 1
            previous_const = arg
            continue
        if op == store_name and previous_const is not None and code.co_names[arg] == "__doc__":
            doc_stores.append(previous_const)
        if op != 0:  # an inline cache entry (0) does not end the pair
            previous_const = None
    if consts and type(consts[0]) is str and not uses.get(0):
        consts[0] = None  # a function's docstring
    for index in doc_stores:
        if type(consts[index]) is str and uses.get(index) == 1:
            consts[index] = None  # a module's or a class's docstring
    for index, value in enumerate(consts):
        if type(value) is type(code):
            consts[index] = _strip(value, loads_constant, store_name, extended)
    return code.replace(co_consts=tuple(consts))
