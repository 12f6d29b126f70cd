"""What the SSRF guard's proxy costs a download: the same yt-dlp runs with and without it.

`python bench/guard_proxy.py [--rounds N]` — everything on 127.0.0.1: the local video site and
the proxy run in this process (as the proxy runs in the bot's), yt-dlp is the real one, forked
from its warm server like the bot's runs. Each round runs every case once straight and once
through the proxy, in alternating order, so drift in the machine's load hits both alike.

Cases: a ~60 MB MP4 (throughput: one long connection through the relay), an HLS stream of 1 s
segments (the proxy makes each segment its own connection), and the scrape of a page (what a
session and a proxied connection add to a short run). The last line is machine-read:
`proxy_ratio_max=X.XX`, the worst of the cases' median(proxied) / median(straight).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from returns.result import Success

from adapters.net.forward_proxy import ForwardProxy
from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.entries import to_video_info
from core.url_policy import Endpoint, GuardRules
from ports.media import VideoInfo
from testkit.video_site import Body, VideoServer

CLIPS = Path(tempfile.gettempdir()) / "vidrelay-test-clips"
LIMIT = 2000 * 1024 * 1024
BIG_CLIP_ARGS = (
    *("-nostdin", "-v", "error", "-y", "-f", "lavfi"),
    *("-i", "nullsrc=size=640x360:rate=25,geq=random(1)*255:128:128", "-t", "12"),
    *(
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-crf",
        "8",
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
    ),
)

Run = Callable[[YtDlpDownloader, Path], Awaitable[None]]


async def main(rounds: int) -> int:
    work = Path(tempfile.mkdtemp(prefix="vidrelay-bench-guard-"))
    try:
        async with VideoServer(CLIPS) as site:
            big = await _big_clip(work)
            site.set_route("/big.mp4", Body(big.read_bytes(), "video/mp4"))
            await site.add_hls("/hls", clip="medium")
            proxy = ForwardProxy(GuardRules([Endpoint("127.0.0.1", site.port)]))
            straight = YtDlpDownloader(max_filesize_bytes=LIMIT)
            proxied = YtDlpDownloader(max_filesize_bytes=LIMIT, proxy=proxy)
            cases = await _cases(site, straight, big.stat().st_size)
            print(f"yt-dlp through the guard's proxy vs straight, {rounds} rounds, median seconds")
            print(f"{'case':<28}{'straight':>10}{'proxied':>10}{'ratio':>8}")
            ratios = []
            try:
                for name, run in cases.items():
                    await run(straight, work)  # the warm servers and the OS caches, not counted
                    await run(proxied, work)
                    times = await _rounds(run, straight, proxied, work, rounds)
                    ratio = statistics.median(times[1]) / statistics.median(times[0])
                    ratios.append(ratio)
                    medians = f"{statistics.median(times[0]):>10.3f}{statistics.median(times[1]):>10.3f}"
                    print(f"{name:<28}{medians}{ratio:>8.2f}")
            finally:
                await straight.shutdown()
                await proxied.shutdown()
                await proxy.aclose()
            print(f"proxy refusals: {proxy.refused} (must be 0)")
            print(f"proxy_ratio_max={max(ratios):.2f}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _rounds(
    run: Run, straight: YtDlpDownloader, proxied: YtDlpDownloader, work: Path, rounds: int
) -> tuple[list[float], list[float]]:
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(rounds):
        order = [(0, straight), (1, proxied)] if i % 2 == 0 else [(1, proxied), (0, straight)]
        for slot, downloader in order:
            started = time.perf_counter()
            await run(downloader, work)
            times[slot].append(time.perf_counter() - started)
    return times


async def _cases(site: VideoServer, scout: YtDlpDownloader, big_bytes: int) -> dict[str, Run]:
    big = _direct(site.url("/big.mp4"))
    hls = await _scraped(scout, site.url("/hls/index.m3u8"))

    async def download(info: VideoInfo, downloader: YtDlpDownloader, work: Path) -> None:
        staging = Path(tempfile.mkdtemp(dir=work))
        result = await downloader.download(info, staging, timeout=300)
        assert isinstance(result, Success), result
        shutil.rmtree(staging)

    async def scrape(downloader: YtDlpDownloader, _: Path) -> None:
        result = await downloader.scrape(site.url("/pages/video.html"), timeout=120)
        assert isinstance(result, Success), result

    return {
        f"download {big_bytes / 2**20:.0f} MB MP4": lambda d, w: download(big, d, w),
        "download HLS, 8 segments": lambda d, w: download(hls, d, w),
        "scrape an HTML page": scrape,
    }


def _direct(url: str) -> VideoInfo:
    entry = {
        "id": "big",
        "title": "big",
        "extractor": "generic",
        "webpage_url": url,
        "direct": True,
        "format_id": "mp4",
        "ext": "mp4",
        "formats": [{"format_id": "mp4", "url": url, "ext": "mp4", "protocol": "http"}],
    }
    return to_video_info(url, entry, json.dumps(entry), LIMIT)


async def _scraped(downloader: YtDlpDownloader, url: str) -> VideoInfo:
    result = await downloader.scrape(url, timeout=120)
    assert isinstance(result, Success), result
    return result.unwrap()[0]


async def _big_clip(work: Path) -> Path:
    out = work / "big.mp4"
    proc = await asyncio.create_subprocess_exec("ffmpeg", *BIG_CLIP_ARGS, str(out))
    if await proc.wait() != 0:
        raise RuntimeError("ffmpeg could not make the big clip")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=9)
    sys.exit(asyncio.run(main(parser.parse_args().rounds)))
