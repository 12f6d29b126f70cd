"""`vidrelay check`: the first thing an operator runs after deploying.

One line per check, `ok` or `failed` with the reason: the settings, the store, yt-dlp, ffmpeg and
the token (the Bot API's getMe). Exit 0 when every check passed, 1 otherwise. Each check runs even
when one before it failed, so one run shows everything that is wrong. A `warning` line under a
check that passed names what works but will surprise (privacy mode in groups, a webhook set, a
misspelt setting).
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from adapters.process.exit import Exit
from adapters.process.runner import ChildProcesses
from adapters.telegram.account import token_problem
from adapters.ytdlp.locator import YtDlpCommand
from entrypoints.data_folder import data_folder_problem
from entrypoints.preflight import missing_tools
from entrypoints.settings import Settings, misspelt_settings
from entrypoints.wiring.checks import Checks
from entrypoints.wiring.stores import open_store, shutdown
from ports.bot_account import WebhookState
from ports.messenger import MessengerError

TOOL_TIMEOUT_SECONDS = 30.0
EXIT_PASSED, EXIT_FAILED = 0, 1


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    warning: bool = False
    """It works, but not as an operator may expect: said, and not counted as a failure."""

    def line(self) -> str:
        verdict = "warning" if self.warning else "ok" if self.ok else "failed"
        return f"{self.name:<9} {verdict:<6} {self.detail}"


def _warning(name: str, detail: str) -> CheckResult:
    return CheckResult(name, True, detail, warning=True)


def settings_failed(reason: str) -> CheckResult:
    return CheckResult("settings", False, reason)


async def run_checks(settings: Settings) -> list[CheckResult]:
    checks: list[Callable[[Settings, Checks], Awaitable[CheckResult | list[CheckResult]]]] = [
        _settings,
        _store,
        _ytdlp,
        _ffmpeg,
        _telegram,
    ]
    through = Checks(settings=settings)
    results: list[CheckResult] = []
    try:
        for check in checks:
            result = await check(settings, through)
            results += result if isinstance(result, list) else [result]
    finally:
        await shutdown(through)
    return results


async def _settings(settings: Settings, _: Checks) -> list[CheckResult]:
    found = CheckResult("settings", True, f"store {settings.store}, data in {settings.data_dir}")
    return [found, *(_warning("settings", misspelt) for misspelt in misspelt_settings())]


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
    version = ran.stdout.strip() + where
    runtimes = await _js_runtimes(command, through.processes())
    if runtimes is None or runtimes == "none" or "(unsupported)" in runtimes:
        found = "none" if runtimes is None else runtimes
        return CheckResult("yt-dlp", False, f"{version}, but {NO_JS_RUNTIME} (yt-dlp found: {found})")
    return CheckResult("yt-dlp", True, f"{version}, JavaScript runtime {runtimes}")


NO_JS_RUNTIME = (
    "no JavaScript runtime it can use: YouTube and other sites that need one fail. Install Deno,"
    " e.g. `pip install 'vidrelay[extractors]'` (`make setup` does), or from https://deno.com"
)
_RUNTIMES = "[debug] JS runtimes:"


async def _js_runtimes(command: YtDlpCommand, processes: ChildProcesses) -> str | None:
    """What yt-dlp's own verbose header says of the JavaScript runtimes it finds (`deno-2.5.0`,
    `none`): asked of yt-dlp itself, so the answer is its detection, not a guess of ours. The
    `about:` link makes it stop before any request, with an error that is of no interest here."""
    found: list[str] = []

    def header(line: str) -> None:
        if _RUNTIMES in line:
            found.append(line.split(_RUNTIMES, 1)[1].strip())

    await processes.run(
        (*command.argv, "--ignore-config", "--verbose", "--simulate", "about:blank"),
        env=command.env,
        timeout=TOOL_TIMEOUT_SECONDS,
        on_stdout=lambda line: None,
        on_stderr=header,
    )
    return found[0] if found else None


async def _ffmpeg(settings: Settings, through: Checks) -> CheckResult:
    if (missing := missing_tools()) is not None:
        return CheckResult("ffmpeg", False, missing)
    ffmpeg = shutil.which("ffmpeg") or "ffmpeg"
    ran = await through.processes().capture((ffmpeg, "-version"), timeout=TOOL_TIMEOUT_SECONDS)
    if not ran.exit.ok:
        return CheckResult("ffmpeg", False, _ended(ran.exit))
    first = ran.stdout.strip().splitlines()[0] if ran.stdout.strip() else "ffmpeg"
    return CheckResult("ffmpeg", True, first.split(" Copyright")[0] + ", ffprobe found")


async def _telegram(settings: Settings, through: Checks) -> CheckResult | list[CheckResult]:
    if settings.bot_token is None:
        return CheckResult("telegram", False, "VIDRELAY_BOT_TOKEN is not set")
    token = settings.bot_token.get_secret_value()
    if (problem := token_problem(token)) is not None:
        return CheckResult("telegram", False, f"VIDRELAY_BOT_TOKEN {problem}")
    account = await through.account.async_()
    try:
        profile = await account.profile()
    except MessengerError as error:
        return CheckResult("telegram", False, _refusal("getMe", error, settings.telegram_api_url))
    results = [CheckResult("telegram", True, f"{profile.name} via {settings.telegram_api_url}")]
    if not profile.reads_group_messages:
        results.append(_warning("telegram", PRIVACY_MODE))
    try:
        webhook = await account.webhook()
    except MessengerError as error:
        failed = CheckResult("webhook", False, _refusal("getWebhookInfo", error, settings.telegram_api_url))
        return [*results, failed]
    return [*results, *_webhook(webhook, settings.webhook_url)]


PRIVACY_MODE = (
    "privacy mode is on: in groups the bot sees commands and replies to it, not plain links."
    " Turn it off with @BotFather (/setprivacy → Disable), then remove the bot from each group and"
    " add it again, or make it an administrator there (see the README's Groups)"
)


def _webhook(state: WebhookState, ours: str | None) -> list[CheckResult]:
    if not state.url:
        return []
    waiting = f"{state.pending_updates} update(s) waiting"
    results = [
        CheckResult("webhook", True, f"set to VIDRELAY_WEBHOOK_URL, {waiting}")
        if state.url == ours
        else _warning(
            "webhook",
            f"a webhook is set (not VIDRELAY_WEBHOOK_URL), {waiting}: `vidrelay run` deletes it at start"
            " and polls, keeping the updates; `vidrelay run --webhook` replaces it",
        )
    ]
    if state.last_error:
        results.append(_warning("webhook", f"Telegram's last delivery failed: {_one_line(state.last_error)}"))
    return results


def _refusal(method: str, error: MessengerError, api_url: str) -> str:
    text = _one_line(error.description)
    if error.code is None:
        return f"{api_url} did not answer {method}: {text}"
    return f"the Bot API answered {method} with {error.code} {text}"


def _ended(exit: Exit) -> str:
    last = next((line for line in reversed(exit.stderr_tail.splitlines()) if line.strip()), "")
    return f"{exit.describe()}: {last.strip()}" if last else exit.describe()


def _one_line(error: object) -> str:
    return " ".join(str(error).split()) or type(error).__name__
