"""The one path a link takes to become a file in Telegram, for every job that delivers one.

- video.py        `Delivery`: guard → scrape (cached) → by file_id, or one shared download made
                  playable → upload with a thumbnail → the file_id recorded, the bytes released
- audio.py        `AudioDelivery`: the same for the sound alone
- destination.py  what a job says about where the file goes (`Destination`, `AudioDestination`)
- report.py       what the chat hears on the way (`Report`; `Quiet` says nothing)
- sending.py      the steps both share: fetching the bytes, refusing what is too large, sending,
                  recording what was sent
- failures.py     a failure as the engine takes it, with a reason a user may read
- turns.py        a video's turn in its chat under Telegram's pacing
- outage.py       `TelegramOutages`: a job that cannot reach Telegram waits, its attempt not charged
"""
