"""How English asks an attribute's value by naming it: "what is my bike's colour?", "which
port …", "billing API port?" (:mod:`memory_core.text.value_classes`)."""

from __future__ import annotations

# A bare "… <noun>?" asks the value only as a short question of its own ("billing API port?",
# "and the price?"), not a clause that opens with an auxiliary or another wh-word ("did Bob
# reply to the email?", "why do phones come in so many colours?").
_NOT_BARE = (
    "(?:did|do|does|can|could|should|would|will|shall|may|might|must|was|were|is|are|am|has|have|had|"
    "why|how|when|where|who|whom|whose)"
)


def what_is(noun: str) -> str:
    """English "what/which (is/was) (the/my …) (a word or two) <noun>" or a bare "… <noun>?" (as
    "billing API port?"): a question for its value."""
    return (
        r"\b(?:what|which)(?:'s|\s+(?:is|was|were|are|will\s+be|would\s+be))?\s+"
        rf"(?:(?:the|my|our|your|its|their|his|her|this|that)\s+)?(?:[a-z'-]+\s+){{0,2}}{noun}\b"
        rf"|(?:^|[,:])\s*(?!{_NOT_BARE}\b)(?:[a-z0-9'-]+\s+){{0,3}}{noun}\s*\?\s*$"
    )
