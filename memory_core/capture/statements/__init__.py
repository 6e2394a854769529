"""The explainable classifier of a person's own statements, English and Chinese.

* ``statements``: the entry (which statements of a message are worth keeping, and why)
* ``statement_en*``: English (tokens, forms, kinds, practices, word lists)
* ``statement_zh*``: Chinese (features, word lists)
* ``statement_text`` / ``statement_reference``: a statement's text; what it refers to
"""
