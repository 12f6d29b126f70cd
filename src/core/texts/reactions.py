"""The reactions the bot leaves on a group's link: an emoji, read alike in every language."""

FAILURE = "😢"
"""The link's job failed for good."""
BUSY = "😴"
"""A group's link the store could not take for now: asleep, send it again later."""
