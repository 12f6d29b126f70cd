"""What the SSRF guard's proxy costs a download: the same yt-dlp runs with and without it.

`python bench/guard_proxy.py [--rounds N] [--quick]` — everything on 127.0.0.1: the local video site and
the proxy run in this process (as the proxy runs in the bot's), yt-dlp is the real one, forked
from its warm server like the bot's runs. Each round runs every case once straight and once
through the proxy, in alternating order, so drift in the machine's load hits both alike.

Cases: a ~60 MB MP4 (throughput: one long connection through the relay), an HLS stream of 1 s
segments (the proxy makes each segment its own connection), and the scrape of a page (what a
session and a proxied connection add to a short run). The figures line:
`guard_proxy: proxy_ratio_max=X.XX mp4_ratio=X.XX hls_ratio=X.XX scrape_ratio=X.XX refused=0`,
each ratio median(proxied) / median(straight), the max the worst of the cases.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from returns.result import Success

import harness
from adapters.net.forward_proxy import ForwardProxy
from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.entries import to_video_info
from core.url_policy import Endpoint, GuardRules
from ports.media import VideoInfo
from testkit.video_site import Body, VideoServer

bench = harness.Bench("guard_proxy", __doc__)
bench.size("--rounds", 9, quick=1, help="rounds, each case straight and proxied once")
bench.size("--big-seconds", 12, quick=1, help="length of the big MP4 (noise at crf 8: ~5 MB a second)")
CLIPS = Path(tempfile.gettempdir()) / "vidrelay-test-clips"
LIMIT = 2000 * 1024 * 1024
BIG_CLIP_ARGS = (
    *("-nostdin", "-v", "error", "-y", "-f", "lavfi"),
    *("-i", "nullsrc=size=640x360:rate=25,geq=random(1)*255:128:128"),
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


async def measure(args: argparse.Namespace) -> None:
    bench.setup(libraries=("yt-dlp",), ffmpeg=await _ffmpeg_version())
    rounds = args.rounds
    work = Path(tempfile.mkdtemp(prefix="vidrelay-bench-guard-"))
    try:
        async with VideoServer(CLIPS) as site:
            big = await _big_clip(work, args.big_seconds)
            site.set_route("/big.mp4", Body(big.read_bytes(), "video/mp4"))
            await site.add_hls("/hls", clip="medium")
            proxy = ForwardProxy(GuardRules([Endpoint("127.0.0.1", site.port)]))
            straight = YtDlpDownloader(max_filesize_bytes=LIMIT)
            proxied = YtDlpDownloader(max_filesize_bytes=LIMIT, proxy=proxy)
            cases = await _cases(site, straight, big.stat().st_size)
            print(f"yt-dlp through the guard's proxy vs straight, {rounds} rounds, median seconds")
            print(f"{'case':<28}{'straight':>10}{'proxied':>10}{'ratio':>8}")
            ratios: dict[str, float] = {}
            try:
                for (name, figure), run in cases.items():
                    await run(straight, work)  # the warm servers and the OS caches, not counted
                    await run(proxied, work)
                    times = await _rounds(run, straight, proxied, work, rounds)
                    ratio = statistics.median(times[1]) / statistics.median(times[0])
                    ratios[figure] = ratio
                    medians = f"{statistics.median(times[0]):>10.3f}{statistics.median(times[1]):>10.3f}"
                    print(f"{name:<28}{medians}{ratio:>8.2f}")
            finally:
                await straight.shutdown()
                await proxied.shutdown()
                await proxy.aclose()
            print(f"proxy refusals: {proxy.refused} (must be 0)")
            bench.figures(proxy_ratio_max=max(ratios.values()), **ratios, refused=proxy.refused)
            bench.expect(proxy.refused == 0, f"the proxy refused {proxy.refused} connection(s) to the site")
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


async def _cases(site: VideoServer, scout: YtDlpDownloader, big_bytes: int) -> dict[tuple[str, str], Run]:
    """Each case by its printed name and its figure's."""
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
        (f"download {big_bytes / 2**20:.0f} MB MP4", "mp4_ratio"): lambda d, w: download(big, d, w),
        ("download HLS, 8 segments", "hls_ratio"): lambda d, w: download(hls, d, w),
        ("scrape an HTML page", "scrape_ratio"): scrape,
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


async def _big_clip(work: Path, seconds: int) -> Path:
    out = work / "big.mp4"
    proc = await asyncio.create_subprocess_exec("ffmpeg", *BIG_CLIP_ARGS, "-t", str(seconds), str(out))
    if await proc.wait() != 0:
        raise harness.BenchFailed("ffmpeg could not make the big clip")
    return out


async def _ffmpeg_version() -> str:
    proc = await asyncio.create_subprocess_exec("ffmpeg", "-version", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return out.decode().split()[2] if proc.returncode == 0 else "absent"


if __name__ == "__main__":
    bench.run(measure, bench.parse())
