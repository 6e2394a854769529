"""Completed work observed in a turn, made into a bounded progress source.

* ``work_operations`` / ``work_vocabulary``: which operations are work; its categories
* ``shell_commands`` / ``shell_programs``: a shell command line's kind of work
* ``progress`` / ``progress_text``: what a progress source keeps, in order; its text
* ``progress_targets``: the project states a turn may update
* ``topic_carry``: the topic a follow-up request carries from the previous one
"""
