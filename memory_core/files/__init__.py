"""Files memevo writes beside its store, written so a crash loses nothing promised.

* ``durable_files``: a directory synced after a rename into it
* ``jsonl_log``: a bounded private JSON-lines log (injection and learning logs)

Foundations: standard library only.
"""
