"""A burst of links against Telegram's flood limits: is the bot as fast as its own downloads?

`python bench/burst.py [--chats 30] [--quick]` — 30 private chats each post one short clip of
their own (a path each, so no two jobs share a scrape or a download), all in one getUpdates
batch, to the bot as a real process (`vidrelay run`, job and yt-dlp concurrency 3, a temporary
SQLite store) talking to the fake Bot API with Telegram's flood limits on. In the same run, the
floor: the same 30 links through the product's own downloader as a job uses it (scrape, download
made playable, probe), 3 at a time, no Telegram at all.

The floor runs before the burst and again after it; the faster counts. The figures line:
`burst: burst_vs_floor=X.XX first_reply_p95_s=X.XX 429s=N ...` (burst wall / floor wall; post →
the bot's first message in the chat). Targets (issue 12): burst_vs_floor ≤ 1.5 with 0 429s;
first message p95 ≤ 2 s.

`--peer DIR` (a checkout of the original bot, set up as bench/original_bot.py says) runs the
same burst against it too, the two bots interleaved round by round (`--rounds`), both beside a
local Bot API server as the original is deployed (videos go by path), each against a fake Bot
API of its own with the same limits; the best round of each counts. It adds
`burst_vs_original=` (the original's burst wall / vidrelay's: how many times faster) and the
original's own figures. Target (issue 25): ≥ 2.0, 0 429s, vidrelay's first reply p95 ≤ 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import harness
from entrypoints.container import Container, shutdown
from entrypoints.settings import load_settings
from original_bot import OriginalBot
from ports.media import Downloader, MediaProber
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import CallRecord, Chat, FakeBotApi, FloodLimits, User, VideoRecord
from testkit.video_site import Body, VideoServer

bench = harness.Bench("burst", __doc__)
bench.size("--chats", 30, quick=3, help="private chats, one link each")
bench.size("--floors", 2, quick=1, help="floor runs: 1 before the burst, 2 before and after it")
bench.size("--rounds", 2, quick=1, help="bursts per bot, the bots interleaved (with --peer)")
bench.parser.add_argument("--peer", type=Path, help="a checkout of the original bot (mp4ify-bot)")
CONCURRENCY = 3
JOB_TIMEOUT_SECONDS = 300.0
SCRAPE_TIMEOUT_SECONDS = 60.0
SETTLE_SECONDS = 0.5
"""After the warm-up video its job still commits; the burst starts once the bot is idle again."""

_user_ids = itertools.count(90_001)


@dataclass(frozen=True, slots=True)
class Post:
    chat: Chat
    message_id: int
    at: float
    """time.monotonic() when the update was queued: the fake's records use the same clock."""


@dataclass(frozen=True, slots=True)
class Burst:
    posts: list[Post]
    videos: list[VideoRecord]
    calls: list[CallRecord]
    """Every Bot API call made for the burst's chats, refused ones included."""
    too_many: int
    """429s the fake Bot API answered during the bot's whole run."""

    @property
    def wall(self) -> float:
        return max(v.at for v in self.videos) - min(p.at for p in self.posts)

    def to_video(self) -> list[float]:
        return sorted(v.at - p.at for p, v in zip(self.posts, self.videos, strict=True))

    def to_first_message(self) -> list[float]:
        firsts = []
        for post in self.posts:
            first = next(c for c in self.calls if c.chat_id == post.chat.id and c.ok)
            firsts.append(first.at - post.at)
        return sorted(firsts)


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[round(fraction * (len(sorted_values) - 1))]


def clip_paths(site: VideoServer, prefix: str, count: int) -> list[str]:
    clip = site.clip("short").read_bytes()
    paths = [f"/burst/{prefix}-{n}.mp4" for n in range(count)]
    for path in paths:
        site.set_route(path, Body(clip, "video/mp4"))
    return paths


def new_chat() -> tuple[Chat, User]:
    user_id = next(_user_ids)
    user = User(user_id, f"User {user_id}")
    return Chat.private(user), user


# ---- the floor: the product's downloader alone


async def download_one(downloader: Downloader, prober: MediaProber, url: str, staging: Path) -> None:
    scraped = await downloader.scrape(url, timeout=SCRAPE_TIMEOUT_SECONDS)
    [info] = scraped.unwrap()
    await asyncio.to_thread(staging.mkdir, parents=True)
    produced = (await downloader.download(info, staging, timeout=SCRAPE_TIMEOUT_SECONDS)).unwrap()
    if await prober.probe(produced) is None:
        raise RuntimeError(f"ffprobe could not read {produced}")


async def floor_wall(downloader: Downloader, prober: MediaProber, urls: list[str], root: Path) -> float:
    slots = asyncio.Semaphore(CONCURRENCY)

    async def one(n: int, url: str) -> None:
        async with slots:
            await download_one(downloader, prober, url, root / f"staging-{n}")

    started = time.monotonic()
    await asyncio.gather(*(one(n, url) for n, url in enumerate(urls)))
    return time.monotonic() - started


async def measure_floor(env: dict[str, str], site: VideoServer, root: Path, chats: int) -> float:
    """A container of the bot's own settings builds what a job downloads through (yt-dlp with its
    warm server, made playable everywhere) and the prober; the first run starts the warm server
    and is not counted."""
    container = Container(settings=load_settings(env | {"VIDRELAY_DATA_DIR": str(root)}))
    try:
        # The downloader is a Resource (its warm servers are stopped when the container shuts
        # down), so whatever depends on it resolves asynchronously.
        playable: Downloader = await container.playable.async_()
        prober: MediaProber = container.prober()
        [warm] = clip_paths(site, f"{root.name}-warm", 1)
        await download_one(playable, prober, site.url(warm), root / "warm-up")
        urls = [site.url(p) for p in clip_paths(site, root.name, chats)]
        return await floor_wall(playable, prober, urls, root)
    finally:
        await shutdown(container)  # the warm yt-dlp server must not outlive the floor


# ---- the burst: the bot against the flood limits


def reply_video(api: FakeBotApi, post: Post) -> VideoRecord | None:
    return next((v for v in api.videos(post.chat.id) if v.reply_to == post.message_id), None)


def every_video(api: FakeBotApi, posts: list[Post]) -> list[VideoRecord] | None:
    found = [reply_video(api, p) for p in posts]
    videos = [v for v in found if v is not None]
    return videos if len(videos) == len(posts) else None


async def wait_idle(api: FakeBotApi) -> None:
    await asyncio.sleep(SETTLE_SECONDS)
    await api.wait_for(lambda: api.polling, timeout=JOB_TIMEOUT_SECONDS)


async def warm_up(api: FakeBotApi, site: VideoServer) -> float:
    """One job first: the bot's first yt-dlp run starts its warm server; not counted."""
    chat, user = new_chat()
    [path] = clip_paths(site, f"warm-{next(_user_ids)}", 1)
    at = time.monotonic()
    post = Post(chat, api.send_text(chat, user, site.url(path)), at)
    video = await api.wait_for(lambda: reply_video(api, post), timeout=JOB_TIMEOUT_SECONDS)
    assert video is not None  # wait_for returns only a truthy value
    return video.at - at


async def burst(api: FakeBotApi, site: VideoServer, chats: int, prefix: str) -> Burst:
    """`prefix`: each burst's links are its own, so no bot finds one in a cache."""
    urls = [site.url(p) for p in clip_paths(site, prefix, chats)]
    await wait_idle(api)
    posts = []
    for url in urls:  # no await in between: one getUpdates batch
        chat, user = new_chat()
        posts.append(Post(chat, api.send_text(chat, user, url), time.monotonic()))
    videos = await api.wait_for(lambda: every_video(api, posts), timeout=JOB_TIMEOUT_SECONDS)
    assert videos is not None  # wait_for returns only a truthy value
    await asyncio.sleep(SETTLE_SECONDS)  # a last settling edit may follow a video
    ids = {p.chat.id for p in posts}
    calls = [c for c in api.calls if c.chat_id in ids]
    return Burst(posts, videos, calls, len(api.too_many_requests))


def describe(who: str, result: Burst) -> None:
    chats, wall = len(result.posts), result.wall
    to_video, to_first = result.to_video(), result.to_first_message()
    methods: dict[str, int] = {}
    for call in result.calls:
        methods[call.method] = methods.get(call.method, 0) + 1
    spread = ", ".join(f"{m} ×{n}" for m, n in sorted(methods.items()))
    print(f"{who}'s best burst: {chats} chats, one link each, one getUpdates batch")
    print(f"  wall from the first post to the last video: {wall:.2f} s → {chats / wall * 60:.1f} jobs/min")
    print(f"  Bot API calls per job: {len(result.calls) / chats:.2f} ({spread})")
    print(f"  429s received: {result.too_many}")
    print(
        f"  post → video: p50 {statistics.median(to_video):.2f} s, p95 {percentile(to_video, 0.95):.2f} s, "
        f"max {to_video[-1]:.2f} s"
    )
    print(
        f"  post → the bot's first message in the chat: p50 {statistics.median(to_first):.2f} s, "
        f"p95 {percentile(to_first, 0.95):.2f} s, max {to_first[-1]:.2f} s"
    )


def figures_of(result: Burst) -> dict[str, float]:
    chats, to_first = len(result.posts), result.to_first_message()
    return {
        "first_reply_p95_s": percentile(to_first, 0.95),
        "429s": result.too_many,
        "jobs_per_min": chats / result.wall * 60,
        "calls_per_job": len(result.calls) / chats,
        "video_p50_s": statistics.median(result.to_video()),
        "video_p95_s": percentile(result.to_video(), 0.95),
        "burst_s": result.wall,
    }


def report(bursts: list[Burst], originals: list[Burst], floor: float) -> None:
    best = min(bursts, key=lambda b: b.wall)
    describe("vidrelay", best)
    compared: dict[str, float] = {}
    if originals:
        original = min(originals, key=lambda b: b.wall)
        describe("the original bot", original)
        walls = ", ".join(f"{b.wall:.2f}/{o.wall:.2f}" for b, o in zip(bursts, originals, strict=True))
        print(f"rounds, vidrelay/original wall (s): {walls}")
        compared = {"burst_vs_original": original.wall / best.wall}
        compared |= {f"original_{key}": value for key, value in figures_of(original).items()}
    bench.figures(burst_vs_floor=best.wall / floor, **figures_of(best), floor_s=floor, **compared)


# ---- the run


def _clips_cache() -> Path:
    cache_dir = Path.home() / ".cache" / "vidrelay" / "clips"
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir


def vidrelay_env(api: FakeBotApi, data: Path, *, local: bool) -> dict[str, str]:
    return bot_environment(
        api,
        data,
        VIDRELAY_JOB_CONCURRENCY=str(CONCURRENCY),
        VIDRELAY_YTDLP_CONCURRENCY=str(CONCURRENCY),
        VIDRELAY_TELEGRAM_LOCAL_MODE=str(local).lower(),
    )


async def vidrelay_burst(site: VideoServer, root: Path, chats: int, *, local: bool) -> Burst:
    await asyncio.to_thread(root.mkdir, parents=True)
    async with FakeBotApi(flood_limits=FloodLimits(), local_mode=local) as api:
        bot = BotProcess(vidrelay_env(api, root / "data", local=local), root / "bot.log")
        try:
            await bot.start(api)
            async with harness.alive(bot.wait(JOB_TIMEOUT_SECONDS * 10), "vidrelay"):
                print(f"vidrelay warm-up job (not counted): {await warm_up(api, site):.2f} s")
                return await burst(api, site, chats, root.name)
        except Exception:
            print(f"the bench failed; vidrelay's log:\n{bot.log()}", file=sys.stderr)
            raise
        finally:
            if bot.running:
                await bot.terminate()


async def original_burst(site: VideoServer, checkout: Path, root: Path, chats: int) -> Burst:
    async with FakeBotApi(flood_limits=FloodLimits(), local_mode=True) as api:
        bot = OriginalBot(checkout, root)
        try:
            await bot.start(api)
            async with harness.alive(bot.wait(JOB_TIMEOUT_SECONDS * 10), "the original bot"):
                print(f"original warm-up job (not counted): {await warm_up(api, site):.2f} s")
                return await burst(api, site, chats, root.name)
        except Exception:
            print(f"the bench failed; the original bot's log:\n{bot.log.read_text()}", file=sys.stderr)
            raise
        finally:
            await bot.stop()


async def measure(args: argparse.Namespace) -> None:
    peer: Path | None = args.peer
    bench.setup(libraries=("yt-dlp", "aiogram"), concurrency=CONCURRENCY, clip="short", peer=peer or "none")
    with tempfile.TemporaryDirectory(prefix="vidrelay-burst-") as tmp:
        root = Path(tmp)
        async with VideoServer(_clips_cache()) as site, FakeBotApi() as unused:
            env = vidrelay_env(unused, root / "data", local=False)  # the floor talks to no Telegram
            floors = [await measure_floor(env, site, root / "floor-1", args.chats)]
            bursts: list[Burst] = []
            originals: list[Burst] = []
            for n in range(args.rounds if peer else 1):  # interleaved: each bot meets the same machine
                ours = await vidrelay_burst(site, root / f"vidrelay-{n}", args.chats, local=bool(peer))
                bursts.append(ours)
                if peer:
                    originals.append(await original_burst(site, peer, root / f"original-{n}", args.chats))
            if args.floors > 1:
                floors.append(await measure_floor(env, site, root / "floor-2", args.chats))
    floor = min(floors)
    print(
        f"floor: the same {args.chats} links through the product's downloader (scrape, download, probe), "
        f"{CONCURRENCY} at a time, no Telegram: {floors[0]:.2f} s before the bursts"
        + (f", {floors[1]:.2f} s after; the faster counts" if len(floors) > 1 else "")
    )
    report(bursts, originals, floor)


if __name__ == "__main__":
    bench.run(measure, bench.parse())
