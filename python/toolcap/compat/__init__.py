"""Drop-in replacements for the tool-output truncation of agent harnesses:
the same text for the model, from toolcap's streaming capper."""
