"""The Telegram Bot API through aiogram: the Messenger port, the bot factory, flood control."""
