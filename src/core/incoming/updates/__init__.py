"""An update from Telegram to its handler, durable before Telegram is told it arrived.

- receiving.py  `Receiver`: a batch (a getUpdates answer, a webhook request) is kept in the store's
                inbox, then handed to the lanes; what was kept and not handled is replayed at start
- polling.py    `Polling`: the getUpdates loop — fetch, keep, and only then confirm (the next
                offset); a batch the store refuses is kept trying and never confirmed
- lanes.py      `Lanes`: kept updates handled one lane (a chat) at a time in order, lanes side by
                side; an update whose work the store refused stays and is handled again later
"""
