"""What an update names is checked against what the bot made: signed button data, signed inline
result ids, the install secret they are signed with, and the checks for edits and migrations."""
