"""Fixed instants for tests that take ``now``."""

T0 = 1_700_000_000.0
DAY = 86_400.0
NOW = T0 + DAY
