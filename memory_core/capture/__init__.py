"""Capture: turning what happened in an agent into stored sources.

* ``intake``: sanitize, dedupe and store one source (and the summary's own labelled lines)
* ``local_claims``: a summary's labelled lines written as claims, as plain rows
* ``cues`` / ``feedback_syntax`` / ``summary_lines``: explicit statements; feedback messages;
  self-labelled lines of a summary
* ``turn``: one finished turn: statements, feedback messages and completed work
* ``learning_log``: the log of capture decisions
* ``statements``: the classifier of a person's own statements (English and Chinese)
* ``work``: completed work observed in a turn, made into a bounded progress source
"""
