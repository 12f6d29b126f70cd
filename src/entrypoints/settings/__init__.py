"""Configuration: the environment of SPEC §6 (and a `.env` file), validated once at start.

`Settings` is one frozen value made of a group per concern; a new setting goes into its group
with a description (the README's table is generated from them: `make readme-config`).

- telegram.py     the token, the Bot API server, webhooks, inline mode's chat, Telegram outages
- storage.py      the data folder, the store (SQLite, memory, PostgreSQL), the blob folder's cap
- database.py     the PostgreSQL connection: its URL or parts, its timeouts
- jobs.py         the job engine: concurrency, attempts, leases, the queue's order, shutdown grace
- ytdlp.py        yt-dlp: how many at once, its deadline, updates, the warm server, cookies
- downloads.py    the download cap, ffmpeg's deadline, when a long video asks first
- egress.py       the SSRF guard and yt-dlp's proxy
- access.py       the chats served, the admins, each user's queue cap and quotas
- operations.py   `/metrics` and `/healthz`, the log lines, the env file
- model.py        `Settings`: the groups together, what spans them, `masked()`
- consistency.py  the rule across groups (local mode needs a local server, one database)
- loading.py      `load_settings`: one line naming the variable at fault; misspelt names
- environment.py  where values come from: the environment over the `.env` file
- values.py       a setting's value as text: parsed, shown masked
- dsn.py          the PostgreSQL URL: VIDRELAY_DATABASE_URL, or the URL of its parts
"""

from entrypoints.settings.environment import PREFIX
from entrypoints.settings.loading import SETTING_VARIABLES, SettingsError, load_settings, misspelt_settings
from entrypoints.settings.model import Settings

__all__ = ["PREFIX", "SETTING_VARIABLES", "Settings", "SettingsError", "load_settings", "misspelt_settings"]
