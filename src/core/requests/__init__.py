"""What both sides of the core agree on: the values a job carries and the names they share.

The handler side (`core.incoming`) makes them from what arrives; the worker side (`core.work`)
reads them back from the job's payload. Nothing here does anything.

- download.py   `DownloadRequest`: a link in a chat, with the chat's choices and where its log stands
- inline.py     `InlineRequest` and the variants an inline query offers
- prompt.py     the long-video prompt's buttons and how long it stays open
- job_names.py  the verbs the job store knows
- payload.py    reading a payload's values, a wrong one a `PayloadError`
"""
