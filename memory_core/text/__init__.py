"""Text to features, shared by the recall index, recall queries and consolidation targets.

* ``tokenize``: English words (stems), numbers, literals, Chinese bigrams, concepts
* ``stem``: a Porter stemmer
* ``vocabulary``: filler, generic and framing words (English and Chinese)
* ``concepts``: the bilingual concept map

Standard library only, with regular expressions compiled at import: the recall hook loads it.
"""
