"""The long-video prompt's two buttons, as both sides name them: a worker parks the request and
posts the prompt (work.download.parking), a press decides (incoming.confirmations)."""

CONFIRM = "confirm"
CANCEL = "cancel"
PENDING_TTL_SECONDS = 6 * 3600.0
"""A prompt nobody answered lapses after this long; its pinned bytes become collectable."""
