"""The composition root, in layers, each a container the next one extends (`entrypoints/container.py`
is the top one, and the only one the bot, the CLI and the tests build):

- stores.py    the wall clock and the store the settings choose (what the CLI's store tools open)
- adapters.py  everything outside the core: yt-dlp, ffmpeg, the blob files, the SSRF guard's
               proxy, Telegram (the bot, its flood control, the messenger, the account), metrics
- jobs.py      the core's services and the worker side: what the jobs are built from, the job
               list and the engine that runs it
- ../container.py  the handler side, the dispatcher and what /healthz and /metrics read

Beside them, checks.py: what `vidrelay check` asks the outside world through.

Only these build adapters or choose between them; tests override the adapters they fake on the
top container and keep the rest of the wiring.
"""
