"""What an update names is checked against what the bot made: signed button data, signed inline
result ids, the install secret they are signed with, and the checks for edits and migrations.

- keys.py           `InstallKeys`: the install's signing keys, from one secret the store keeps
- mac.py            short MACs over a few fields (HMAC-SHA256, 96 bits)
- callback_data.py  `ButtonRef`: `action:object:tag`, bound to the chat and message it sits under
- buttons.py        `SignedButtons`: inline keyboards signed for their message, and a press checked
- inline_offers.py  inline result ids that say what was offered, to whom, for which link, when
- migrations.py     when a chat's new id may be followed (a basic group becoming a supergroup)
"""
