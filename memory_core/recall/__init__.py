"""Local lexical recall: tokenizer, persisted index, query plan, scoring, digest.

Recall runs in a fresh short-lived process on every user turn, so this package keeps its
import cost low: no pydantic (the chosen rows are read as JSON, see ``rows``), value types
are NamedTuples (a dataclass costs about a millisecond to build at import), and rarely
needed modules are imported where they are used.
"""
