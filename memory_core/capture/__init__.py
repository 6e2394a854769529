"""Capture: turning what happened in an agent into stored sources.

* ``intake``: sanitize, dedupe and store one source (and the summary's own labelled lines)
* ``cues``: explicit user statements worth remembering
* ``feedback_syntax``: whole messages that give feedback on a recalled claim
* ``summary_lines``: self-labelled lines of a summary that become local claims
"""
