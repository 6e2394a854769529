"""Memory controls: the changes a person makes (docs/memory-controls.md).

* ``manual``: forget, correct, pin, unpin, resolve
* ``undo``: reverting one recorded change exactly
* ``feedback``: useful/unhelpful/accurate/incorrect verdicts with replay-safe receipts
* ``transfer``: export and import as JSON lines
"""
