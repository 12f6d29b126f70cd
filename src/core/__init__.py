"""The domain: pure rules, and the services that run them over ports (it imports only `ports`).

Read in the two directions a user thinks in: `incoming/` (the handler side: what happens when
something arrives) and `work/` (the worker side: what a worker does with a job); the first never
imports the second. Below both: `requests/` (what a job carries), `log_message/` (a job's log
message in its chat), `jobs/` (the job engine), `lifecycle/` (a job's life as a pure state
machine), `media/` (bytes fetched once, kept, made playable), `chat_settings/`, `trust/` (signed
button and inline data). Each package's `__init__` maps its modules. At this root, the rules:

- urls.py, url_policy.py, url_guard.py, addresses.py   links found in a message, which may be
                        fetched and where (the SSRF guard), which addresses are public
- allowlist.py          the chats the bot serves
- blob_names.py, blob_retention.py   how a video's bytes are named, and when they may go
- ytdlp_errors.py, telegram_errors.py   what a failure of yt-dlp or of the Bot API means
- texts.py, durations.py   every text a user sees, and durations as a user reads them
- command_menus.py      the command menus published at every start
- startup.py            start-up against a chat service that may not answer yet
- status.py, updater_status.py   what `/status` and `/metrics` report; the updater's last check
- update_freshness.py   are updates still coming in (for `/healthz`)
- telemetry.py          the listener for the telemetry ports when nobody counts
"""
