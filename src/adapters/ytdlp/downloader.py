"""The Downloader port on the yt-dlp command line.

Every run: a child process without a shell, the project's options only (`--ignore-config`), no
`--exec`, no file URLs (refused here before any spawn, and yt-dlp refuses them without
`--enable-file-urls`, which is never passed), H.264/AAC MP4 (`-t mp4`). A semaphore owned by the
downloader caps the yt-dlp processes of scrapes and downloads together; a run's timeout starts
when its process starts, not while it waits for a slot.

A download cap (`max_download_bytes`) bounds every download: yt-dlp's `--max-filesize` refuses a
body whose announced length is over it before reading any of it, and a count of the staging
folder's bytes while yt-dlp runs stops a download that grows past it (no length announced, or
fragments). Either way the run fails with `too_large_bytes` set.

A cookies file (Netscape cookies.txt) is handed to each run as a private copy, because yt-dlp
writes its cookie jar back into the file it was given; with cookies configured, the cookies
yt-dlp puts into its entry JSON are stripped before the entry is kept anywhere.

With a `proxy` (the SSRF guard's), every run goes through it with credentials of its own
(`egress`): each redirect, fragment and thumbnail is checked, and a run the proxy refused
something to fails with the refusal as its reason.

With `warm=True` (the default) scrapes and downloads are forked from a pre-warmed yt-dlp server
(`forkserver`) instead of starting Python and yt-dlp from scratch; any trouble with it falls back
to the plain process. `version()` always starts a plain one (it needs no warm server).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from returns.result import Failure, Result, Success

from adapters.process import ChildProcesses, Exit
from adapters.ytdlp.cookies import CookieJarCopies, NoCookies, without_cookies
from adapters.ytdlp.egress import guarded_run
from adapters.ytdlp.entries import SAFE_FORMAT_ID, parse_entries
from adapters.ytdlp.forkserver import ForkServers
from adapters.ytdlp.locator import Locator, YtDlpLocator
from adapters.ytdlp.outcomes import oversize_failure, produced_file, refused_url, run_failure
from adapters.ytdlp.oversize import Oversize, folder_bytes, watch_folder
from adapters.ytdlp.progress import TEMPLATE, is_progress_line, parse_progress
from ports.audio import AudioDownloader
from ports.media import Downloader, OutputSink, ProgressSink, ToolFailure, VideoInfo
from ports.net import EgressProxy

log = logging.getLogger(__name__)

MAX_ENTRIES = 10
"""A post or playlist yields at most this many videos; one more is scraped so the caller can tell."""
INFO_JSON_NAME = ".vidrelay-info.json"
_VERSION_TIMEOUT_SECONDS = 30.0

_BASE = ("--ignore-config", "--no-exec", "--no-mtime", "--color", "never")
_COMMON = (*_BASE, *("-t", "mp4"))
_SOUND = (
    *_BASE,
    # An M4A when the site has one; else any sound; else the whole video, and ffmpeg takes the
    # sound out. Among equals the smallest picture: only its sound is kept.
    *("-f", "ba[ext=m4a]/ba/b", "-S", "abr,+res"),
    *("-x", "--audio-format", "m4a", "--embed-metadata"),
    # The site's picture becomes the file's cover (the thumbnail is taken from it at upload).
    *("--embed-thumbnail", "--convert-thumbnails", "jpg"),
)


class YtDlpDownloader(Downloader, AudioDownloader):
    def __init__(
        self,
        *,
        max_filesize_bytes: int,
        max_download_bytes: int | None = None,
        cookies_file: Path | None = None,
        concurrency: int = 3,
        locator: Locator | None = None,
        kill_grace_seconds: float = 2.0,
        warm: bool = True,
        warm_idle_seconds: float = 120.0,
        proxy: EgressProxy | None = None,
    ) -> None:
        """`max_filesize_bytes`: the upload limit the format choice aims under; `max_download_bytes`:
        nothing bigger is fetched. `warm`: fork runs from a pre-warmed yt-dlp server, which exits
        after `warm_idle_seconds` without a run. `proxy`: the SSRF guard every request of a run
        goes through (None: none)."""
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self._max_filesize = max_filesize_bytes
        self._cap = max_download_bytes
        self._cookies = CookieJarCopies(cookies_file) if cookies_file is not None else None
        self._slots = asyncio.Semaphore(concurrency)
        self._locator = locator if locator is not None else YtDlpLocator()
        self._children = ChildProcesses(kill_grace_seconds)
        self._forkservers = ForkServers(idle_timeout=warm_idle_seconds) if warm else None
        self._proxy = proxy

    @property
    def proxy(self) -> EgressProxy | None:
        return self._proxy

    @property
    def live_pids(self) -> list[int]:
        return self._children.live_pids

    @property
    def forkserver_pids(self) -> list[int]:
        """The running yt-dlp fork servers (none until a run needs one, none once they idle out)."""
        return self._forkservers.pids if self._forkservers is not None else []

    async def shutdown(self) -> None:
        """Kill the running yt-dlp processes; they and every later run return ToolFailure(aborted=True).
        The fork servers stop too."""
        await self._children.shutdown()
        if self._forkservers is not None:
            await self._forkservers.aclose()

    async def scrape(
        self,
        url: str,
        *,
        timeout: float,
        verbose: bool = False,
        on_output: OutputSink | None = None,
    ) -> Result[list[VideoInfo], ToolFailure]:
        if (refusal := refused_url(url)) is not None:
            return Failure(refusal)
        stdout: list[str] = []
        args = (
            *_COMMON,
            *_verbosity(verbose),
            "--no-progress",
            *("--playlist-items", f"1:{MAX_ENTRIES + 1}"),
            "--dump-json",
            "--",
            url,
        )
        async with self._cookie_args() as cookies:
            outcome = await self._run((*cookies, *args), timeout, stdout.append, _sink(on_output))
        if not outcome.ok:
            return Failure(run_failure(outcome))
        lines = [without_cookies(line) for line in stdout] if self._cookies is not None else stdout
        return Success(parse_entries(url, lines, self._max_filesize, self._cap))

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        fmt = ("-f", info.format_id) if SAFE_FORMAT_ID.fullmatch(info.format_id) else ()
        return await self._download(
            info, staging, (*_COMMON, *fmt), timeout, verbose, _sink(on_output), on_progress
        )

    async def download_audio(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        return await self._download(info, staging, _SOUND, timeout, verbose, _sink(on_output), on_progress)

    async def _download(
        self,
        info: VideoInfo,
        staging: Path,
        choice: tuple[str, ...],
        timeout: float,
        verbose: bool,
        output: OutputSink,
        on_progress: ProgressSink | None,
    ) -> Result[Path, ToolFailure]:
        """`info` downloaded as `choice` (the preset and format options) says, into `staging`."""
        for url in (info.url, info.webpage_url):
            if (refusal := refused_url(url)) is not None:
                return Failure(refusal)
        info_file = staging / INFO_JSON_NAME
        try:
            await asyncio.to_thread(info_file.write_text, info.info_json, "utf-8")
        except OSError as e:
            return Failure(ToolFailure(f"ERROR: could not write the info file: {e}\n", exit_code=None))
        cap = ("--max-filesize", str(self._cap)) if self._cap is not None else ()
        args = (
            *choice,
            *_verbosity(verbose),
            *cap,
            *("--load-info-json", str(info_file)),
            *("--paths", f"home:{staging}", "--paths", f"temp:{staging}"),
            *("-o", "%(id).64B.%(ext)s", "--restrict-filenames"),
            *("--newline", "--progress-template", TEMPLATE),
        )
        oversize = Oversize(self._cap)

        def stdout_line(line: str) -> None:
            if is_progress_line(line):
                progress = parse_progress(line)
                if progress is not None:
                    oversize.saw_bytes(progress.downloaded_bytes)
                    if on_progress is not None and not oversize.exceeded:
                        on_progress(progress)
            else:
                oversize.saw_line(line)
                output(line)

        async with self._cookie_args() as cookies:
            outcome = await self._run_capped(
                (*cookies, *args), timeout, stdout_line, output, staging, oversize
            )
        if oversize.exceeded:
            return Failure(oversize_failure(outcome, oversize))
        if not outcome.ok:
            return Failure(run_failure(outcome))
        produced = await asyncio.to_thread(produced_file, staging, outcome)
        if isinstance(produced, Success) and oversize.saw_bytes(
            await asyncio.to_thread(folder_bytes, staging)
        ):
            return Failure(oversize_failure(outcome, oversize))
        return produced

    async def version(self) -> str | None:
        command = self._locator.command()
        ran = await self._children.capture(
            (*command.argv, "--ignore-config", "--version"),
            env=command.env,
            timeout=_VERSION_TIMEOUT_SECONDS,
        )
        version = next((line.strip() for line in ran.stdout.splitlines() if line.strip()), None)
        return version if ran.exit.ok else None

    def _cookie_args(self) -> CookieJarCopies | NoCookies:
        return self._cookies if self._cookies is not None else NoCookies()

    async def _run_capped(
        self,
        args: Sequence[str],
        timeout: float,
        on_stdout: OutputSink,
        on_stderr: OutputSink,
        staging: Path,
        oversize: Oversize,
    ) -> Exit:
        """The run, stopped (its process group killed) once the staging folder passes the cap."""
        if self._cap is None:
            return await self._run(args, timeout, on_stdout, on_stderr)
        run = asyncio.create_task(self._run(args, timeout, on_stdout, on_stderr))
        watch = asyncio.create_task(watch_folder(staging, oversize))
        try:
            await asyncio.wait({run, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
            if not run.done():
                run.cancel()  # ChildProcesses kills the group before the task ends
            await asyncio.wait([run, watch])
        if run.cancelled():
            return Exit(None, None, "", aborted=False)
        return run.result()

    async def _run(
        self,
        args: Sequence[str],
        timeout: float,
        on_stdout: OutputSink,
        on_stderr: OutputSink,
    ) -> Exit:
        async with self._slots:
            if self._children.shutting_down:
                return Exit(None, None, "", aborted=True)
            # Resolved at spawn time, after the wait for a slot: an update made meanwhile is used.
            command = self._locator.command()
            async with guarded_run(self._proxy) as guard:
                outcome = await self._children.run(
                    (*command.argv, *guard.args, *args),
                    env=guard.environment(command.env),
                    timeout=timeout,
                    on_stdout=guard.sink(on_stdout),
                    on_stderr=guard.sink(on_stderr),
                    spawn=self._forkservers.spawn if self._forkservers is not None else None,
                )
                return guard.outcome(outcome)


def _verbosity(verbose: bool) -> tuple[str, ...]:
    return ("--verbose",) if verbose else ("--no-warnings",)


def _sink(on_output: OutputSink | None) -> OutputSink:
    return on_output if on_output is not None else lambda _: None
