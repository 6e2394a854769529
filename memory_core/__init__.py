"""memevo's domain: records, store, jobs, consolidation, recall. Imports only stdlib and pydantic."""
