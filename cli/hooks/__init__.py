"""Agent hook adapters: one small module per agent, each producing a :class:`HookEvent`."""
