"""The handler side: what the bot does the moment something arrives, before any worker.

An update is kept in the store's inbox before Telegram hears it arrived, then handed to the
handlers one chat at a time (`updates/`). A message with links becomes durable jobs
(`intake/`); an inline query is answered from what is known, and a chosen result becomes a job
(`inline.py`); a press on a long video's prompt decides it (`confirmations.py`). Nothing here
downloads or sends a video: that is `core.work`, which this side never imports (a test and an
import-linter contract say so). Both read and write the values of `core.requests`.
"""
