"""The handler side: what the bot does the moment something arrives, before any worker.

An update is kept in the store's inbox before Telegram hears it arrived, then handed to the
handlers one chat at a time (`updates/`). A message with links becomes durable jobs
(`intake/`); an inline query is answered from what is known, and a chosen result becomes a job
(`inline.py`); a press on a long video's prompt decides it (`confirmations.py`). Nothing here
downloads or sends a video: that is `core.work`, which this side never imports (a test and an
import-linter contract say so). Both read and write the values of `core.requests`.

- updates/          an update kept in the inbox, then handed to its handler chat by chat
- intake/           `LinkIntake`: a message's links become jobs
- inline.py         `InlineRequests`: an inline query answered, a chosen result queued
- known_videos.py   `KnownVideos`: is a link's video one Telegram already has (caches only)
- confirmations.py  `Confirmations`: a long video's prompt decided by one atomic claim
- cancelling.py     `Cancellations`: /cancel and the 🚫 button take back a user's own links
"""
