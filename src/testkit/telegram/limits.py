"""The sizes the real Bot API refuses to go beyond."""

CLOUD_UPLOAD_LIMIT = 50 * 1024 * 1024
LOCAL_UPLOAD_LIMIT = 2000 * 1024 * 1024
"""A local Bot API server (`--local`) takes files up to 2 GB, by upload or by path."""
MAX_MESSAGE_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_POLL_SECONDS = 50.0
"""getUpdates holds a long poll at most this long, whatever `timeout` asks."""
