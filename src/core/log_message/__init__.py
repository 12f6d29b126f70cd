"""A job's log message in its chat: the job writes its state, the chat is shown the latest of it.

One message carries a job from `⏳ Queued` to the video, across attempts and restarts, and never
holds the job up: the job writes to a view, one task per chat delivers what is due when
Telegram's pacing allows.

- views.py     `LogViews`: every live log message of this process, by job; the intake announces
               one, the worker adopts it
- view.py      `LogView`: one job's message as the job writes it (lasting lines, stage, progress)
- sender.py    `ChatSender`: one chat's delivery task, the latest text of each view when due
- delivery.py  putting a text into the chat, forgivingly (chunks sent once, then edited)
- chunks.py    a long HTML text cut into Telegram-sized messages
- state.py     `LogState`, `LogAddress`: where the message is and stands, saved in the job's payload
- cancel_button.py  `CancelButtons`: the 🚫 button under a private chat's live log message
"""
