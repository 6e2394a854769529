"""Background work: the Huey app on queue.db, its tasks, and the model client."""
