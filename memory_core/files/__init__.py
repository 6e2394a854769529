"""Files memevo writes beside its store, written so a crash loses nothing promised.

* ``durable_files``: a directory synced after a rename into it
* ``jsonl_log``: a bounded private JSON-lines log (injection and learning logs)
* ``private_file``: a private cache file replaced whole (the hook path's regex and module caches)

Foundations: standard library only.
"""
