"""Local lexical recall: tokenizer, persisted index, query plan, scoring, digest."""
