"""Capture: turning what happened in an agent into stored sources.

* ``intake``: sanitize, dedupe and store one source (and the summary's own labelled lines)
* ``cues``: explicit user statements worth remembering
* ``feedback_syntax``: whole messages that give feedback on a recalled claim
* ``summary_lines``: self-labelled lines of a summary that become local claims
* ``turn``: one finished turn: statements, feedback messages and completed work
* ``work_operations`` / ``progress``: which operations are work; the bounded progress source
* ``progress_targets``: the project states a progress source may update
* ``learning_log``: the bounded log of capture decisions behind ``memevo learning``
"""
