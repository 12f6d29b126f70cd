"""The outside world, simulated for the tests and the demo: Telegram's Bot API, a video site, clips.

It imports nothing of the project, so what the bot is tested against cannot bend to the bot.
"""
