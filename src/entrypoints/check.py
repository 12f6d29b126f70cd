"""`vidrelay check`: the first thing an operator runs after deploying.

One line per check, `ok` or `failed` with the reason: the settings, the store, yt-dlp, ffmpeg and
the token (the Bot API's getMe). Exit 0 when every check passed, 1 otherwise. Each check runs even
when one before it failed, so one run shows everything that is wrong.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from adapters.process.exit import Exit
from adapters.telegram.account import token_problem
from entrypoints.data_folder import data_folder_problem
from entrypoints.preflight import missing_tools
from entrypoints.settings import Settings
from entrypoints.wiring.checks import Checks
from entrypoints.wiring.stores import open_store, shutdown
from ports.messenger import MessengerError

TOOL_TIMEOUT_SECONDS = 30.0
EXIT_PASSED, EXIT_FAILED = 0, 1


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{self.name:<9} {'ok' if self.ok else 'failed':<6} {self.detail}"


def settings_failed(reason: str) -> CheckResult:
    return CheckResult("settings", False, reason)


async def run_checks(settings: Settings) -> list[CheckResult]:
    checks: list[Callable[[Settings, Checks], Awaitable[CheckResult]]] = [
        _settings,
        _store,
        _ytdlp,
        _ffmpeg,
        _telegram,
    ]
    through = Checks(settings=settings)
    try:
        return [await check(settings, through) for check in checks]
    finally:
        await shutdown(through)


async def _settings(settings: Settings, _: Checks) -> CheckResult:
    return CheckResult("settings", True, f"store {settings.store}, data in {settings.data_dir}")


async def _store(settings: Settings, _: Checks) -> CheckResult:
    if (problem := data_folder_problem(settings.data_dir)) is not None:
        return CheckResult("store", False, problem)
    try:
        async with open_store(settings) as opened:
            counts = await opened.store.counts()
    except Exception as error:  # noqa: BLE001 - any failure to open is what this check reports
        return CheckResult("store", False, _one_line(error))
    where = settings.sqlite_path if settings.store == "sqlite" else settings.store
    return CheckResult(
        "store", True, f"{where}: {counts.waiting + counts.running} queued, {counts.failed} failed"
    )


async def _ytdlp(settings: Settings, through: Checks) -> CheckResult:
    command = through.locator().command()
    ran = await through.processes().capture(
        (*command.argv, "--ignore-config", "--version"), env=command.env, timeout=TOOL_TIMEOUT_SECONDS
    )
    if not ran.exit.ok:
        return CheckResult("yt-dlp", False, _ended(ran.exit))
    where = f" ({command.install_dir.name}, installed by the updater)" if command.install_dir else ""
    return CheckResult("yt-dlp", True, ran.stdout.strip() + where)


async def _ffmpeg(settings: Settings, through: Checks) -> CheckResult:
    if (missing := missing_tools()) is not None:
        return CheckResult("ffmpeg", False, missing)
    ffmpeg = shutil.which("ffmpeg") or "ffmpeg"
    ran = await through.processes().capture((ffmpeg, "-version"), timeout=TOOL_TIMEOUT_SECONDS)
    if not ran.exit.ok:
        return CheckResult("ffmpeg", False, _ended(ran.exit))
    first = ran.stdout.strip().splitlines()[0] if ran.stdout.strip() else "ffmpeg"
    return CheckResult("ffmpeg", True, first.split(" Copyright")[0] + ", ffprobe found")


async def _telegram(settings: Settings, through: Checks) -> CheckResult:
    if settings.bot_token is None:
        return CheckResult("telegram", False, "VIDRELAY_BOT_TOKEN is not set")
    token = settings.bot_token.get_secret_value()
    if (problem := token_problem(token)) is not None:
        return CheckResult("telegram", False, f"VIDRELAY_BOT_TOKEN {problem}")
    try:
        name = await (await through.account.async_()).identify()
    except MessengerError as error:
        return CheckResult("telegram", False, _refusal(error, settings.telegram_api_url))
    return CheckResult("telegram", True, f"{name} via {settings.telegram_api_url}")


def _refusal(error: MessengerError, api_url: str) -> str:
    text = _one_line(error.description)
    if error.code is None:
        return f"{api_url} did not answer getMe: {text}"
    return f"the Bot API answered getMe with {error.code} {text}"


def _ended(exit: Exit) -> str:
    last = next((line for line in reversed(exit.stderr_tail.splitlines()) if line.strip()), "")
    return f"{exit.describe()}: {last.strip()}" if last else exit.describe()


def _one_line(error: object) -> str:
    return " ".join(str(error).split()) or type(error).__name__
