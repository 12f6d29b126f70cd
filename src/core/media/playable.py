"""Downloads that come out playable on every client and within the upload limit.

A Downloader over the Downloader port: once yt-dlp's file is in the staging folder it is probed.
Over the upload limit, it is compressed to fit; when no watchable bitrate fits, it is made
playable whole (converted only if it must be), for the delivery to cut into parts
(core.media.parts) — or refused as too large (`too_large_bytes`) when that would take more parts
than allowed. Under the limit, a stream that not every client plays is converted, or the
container alone remuxed. The result replaces the download in the same staging folder, so the blob
store records the bytes that are sent, and its single flight runs the conversion once per video.
A file ffprobe cannot read, or one without a picture, is passed on as it is: the upload's own
size check still holds.
"""

from __future__ import annotations

from pathlib import Path

from returns.result import Failure, Result, Success

from core.media.fit import fit_plan, tighter
from core.media.parts import may_split
from core.media.playback import playback_plan
from ports.media import (
    Downloader,
    MediaProbe,
    MediaProber,
    OutputSink,
    Progress,
    ProgressSink,
    Stage,
    ToolFailure,
    VideoInfo,
)
from ports.transcoder import TranscodePlan, Transcoder

MAX_FIT_PASSES = 2
"""A capped one pass nearly always lands under the target; a second, tighter one catches the rest."""
PLAYABLE_SUFFIX = ".playable.mp4"


class PlayableDownloads(Downloader):
    def __init__(
        self,
        inner: Downloader,
        prober: MediaProber,
        transcoder: Transcoder,
        *,
        upload_limit_bytes: int,
        max_parts: int,
        transcode_timeout: float,
    ) -> None:
        """`max_parts`: a video no watchable bitrate fits may be sent in this many parts (1: never)."""
        self._inner = inner
        self._prober = prober
        self._transcoder = transcoder
        self._limit = upload_limit_bytes
        self._max_parts = max_parts
        self._timeout = transcode_timeout

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        return await self._inner.scrape(url, timeout=timeout, verbose=verbose, on_output=on_output)

    async def version(self) -> str | None:
        return await self._inner.version()

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
        downloaded = await self._inner.download(
            info, staging, timeout=timeout, verbose=verbose, on_progress=on_progress, on_output=on_output
        )
        if isinstance(downloaded, Failure):
            return downloaded
        return await self.prepare(downloaded.unwrap(), on_progress)

    async def prepare(
        self, produced: Path, on_progress: ProgressSink | None = None
    ) -> Result[Path, ToolFailure]:
        """`produced`, or the playable file made from it beside it."""
        probe = await self._prober.probe(produced)
        if probe is None or probe.video_codec is None:
            return Success(produced)  # not a video: nothing here to convert or compress
        if probe.size is not None and probe.size > self._limit:
            return await self._fit(produced, probe, on_progress)
        return await self._playable(produced, probe, on_progress)

    async def _playable(
        self, produced: Path, probe: MediaProbe, on_progress: ProgressSink | None
    ) -> Result[Path, ToolFailure]:
        plan = playback_plan(probe)
        if plan is None:
            return Success(produced)
        # A remux takes a moment: only a re-encode is worth a progress line.
        stage = Stage.CONVERT if plan.reencodes else None
        return await self._transcode(produced, plan, probe.duration, stage, on_progress)

    async def _fit(
        self, produced: Path, probe: MediaProbe, on_progress: ProgressSink | None
    ) -> Result[Path, ToolFailure]:
        size = probe.size or 0
        plan = fit_plan(probe.duration, self._limit, probe.height, has_audio=probe.audio_codec is not None)
        for _ in range(MAX_FIT_PASSES):
            if plan is None:
                break
            made = await self._transcode(produced, plan, probe.duration, Stage.COMPRESS, on_progress)
            if isinstance(made, Failure):
                return made
            result = await self._prober.probe(made.unwrap())
            if result is None or result.size is None or result.size <= self._limit:
                return made
            plan = tighter(plan, result.size, self._limit)
        if probe.duration is not None and may_split(size, self._limit, self._max_parts):
            return await self._playable(produced, probe, on_progress)  # whole, to be cut into parts
        return Failure(too_large(size, self._limit))

    async def _transcode(
        self,
        source: Path,
        plan: TranscodePlan,
        duration: float | None,
        stage: Stage | None,
        on_progress: ProgressSink | None,
    ) -> Result[Path, ToolFailure]:
        def percent(done: float) -> None:
            if stage is not None and on_progress is not None:
                on_progress(Progress(done, None, None, stage=stage))

        if stage is not None:
            percent(0.0)
        target = source.with_name(
            source.name.removesuffix(PLAYABLE_SUFFIX).rsplit(".", 1)[0] + PLAYABLE_SUFFIX
        )
        return await self._transcoder.transcode(
            source, target, plan, duration=duration, timeout=self._timeout, on_progress=percent
        )


def too_large(size: int, limit: int) -> ToolFailure:
    return ToolFailure(
        stderr_tail=f"ERROR: the video ({size} bytes) does not fit {limit} bytes at a watchable bitrate\n",
        exit_code=None,
        too_large_bytes=size,
    )
