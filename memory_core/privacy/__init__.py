"""What may be kept of what memevo reads.

* ``sanitize``: what text may be stored (valid, bounded, redacted)
* ``redaction``: the secret patterns and their redaction
* ``private_text``: ``<private>`` parts removed before anything is kept
* ``exclusion``: the ``exclude`` setting, directories never read

Foundations: standard library only; every hook may use them.
"""
