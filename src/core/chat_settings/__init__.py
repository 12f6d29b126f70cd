"""Per-chat choices: what they are, how the /settings panel shows them, and who may change them."""
