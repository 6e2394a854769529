"""Installing memevo's hooks into coding agents, and checking them (`memevo doctor`).

- :mod:`cli.install.settings_json`: the agent-neutral part: read, merge, diff and write a
  JSON settings file whose ``hooks`` nest as Event -> matcher groups -> entries.
- :mod:`cli.install.target`: :class:`~cli.install.target.HookTarget`, what one agent needs
  (settings paths, events, timeouts) and how memevo's entries are recognised.
- :mod:`cli.install.claude_code`: Claude Code's ``TARGET``; another agent is one such module
  plus a line in :mod:`cli.install.registry`.
- :mod:`cli.install.codex`: Codex's ``TARGET``, with its notice that Codex runs only trusted
  hooks and the doctor check (``extra_checks``) that reads Codex's trust records.
- :mod:`cli.install.owned_file`: :class:`~cli.install.owned_file.FileTarget`, an agent memevo
  plugs into with a file of its own (Pi's extension, :mod:`cli.install.pi`), written, checked
  and removed whole.
- :mod:`cli.install.actions`: install and uninstall; :mod:`cli.install.check`: doctor's
  agent checks; :mod:`cli.install.executable`: which ``memevo`` the hooks run.
"""
