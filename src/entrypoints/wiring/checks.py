"""What `vidrelay check` asks the outside world through: the store (as the bot opens it), the
yt-dlp the bot would run, the tools as children, and Telegram asked once — no retries: a check
reports what it met, at once, and without the bot's metrics."""

from __future__ import annotations

from dependency_injector import providers

from adapters.process.runner import ChildProcesses
from adapters.telegram.account import TelegramAccount
from adapters.telegram.flood import FloodControl
from adapters.ytdlp.locator import YtDlpLocator
from entrypoints.wiring.adapters import bot_session
from entrypoints.wiring.stores import Stores


class Checks(Stores):
    # The providers of the layers below that this one wires with, by name (a class body does not
    # see its base's names); they are the same providers, so a test's override reaches both.
    settings = Stores.settings
    clock = Stores.clock

    locator = providers.Singleton(YtDlpLocator, settings.provided.data_dir)
    processes = providers.Singleton(ChildProcesses)
    account = providers.Singleton(
        TelegramAccount,
        providers.Resource(
            bot_session,
            settings.provided.bot_token,
            settings.provided.telegram_api_url,
            settings.provided.telegram_local_mode,
            providers.Singleton(FloodControl, clock, max_retries=0),
        ),
    )
