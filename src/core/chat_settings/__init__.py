"""Per-chat choices: what they are, how the /settings panel shows them, and who may change them.

- choices.py             the choices a chat can make (quality, sound, when to ask), and what one
                         signed button press changes
- panel.py               the /settings panel: its text and buttons for the current choices
- service.py             `ChatSettingsService`: a chat's choices read for a link, changed by a press
- who_may_change.py      `Asker` and `SettingsAccess`: may this user change this chat's settings
                         (a private chat's user, a group's administrators), as Telegram answers
- remembered_access.py   `RememberedAccess`: that answer kept for a few taps in a row
"""
