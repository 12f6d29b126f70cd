"""Fairness of the real bot: how long a light user waits while a heavy user's backlog runs.

`python bench/fairness.py [--quick]` — one heavy user posts 50 links (one message each), then 5
light users post one link each; the bot runs at job concurrency 3, as `vidrelay run` in a child
process (real yt-dlp, a temporary SQLite store), against the fake Bot API and the local video
site, all on 127.0.0.1 in this process. Every link is its own path (no shared scrape or
download) to the same clip trickled over `--trickle-seconds`.

A light user's wait is from their post to their video, in units of one job's duration: the
median of `--single-runs` jobs run alone on the idle bot just before. It is measured twice, each
on a fresh bot: with the fair order (the default, `VIDRELAY_QUEUE_ORDER=fair`: round-robin
across users) and with the old first-in, first-out order (`VIDRELAY_QUEUE_ORDER=fifo`).

Figures line: `fairness: fair_p50=X fair_p95=X fifo_p50=X fifo_p95=X job_s=X ...` (waits in job
durations). Goal (issue 22): the light users' p95 ≤ 2 job durations with the fair order.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import harness
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, User, VideoRecord
from testkit.video_site import Trickle, VideoServer

bench = harness.Bench("fairness", __doc__)
bench.size("--heavy-links", 50, quick=4, help="links the heavy user posts, one message each")
bench.size("--light-users", 5, quick=1, help="users posting one link each after the heavy user")
bench.size("--trickle-seconds", 1.0, quick=0.2, help="how long the site takes to serve each link")
bench.size("--single-runs", 3, quick=1, help="jobs run alone to measure one job's duration")
CONCURRENCY = 3
JOB_TIMEOUT_SECONDS = 600.0
ORDERS = ("fair", "fifo")

_user_ids = itertools.count(80_001)
_paths = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Post:
    user: User
    message_id: int
    at: float
    """time.monotonic() just before the update was queued: the fake's records use the same clock."""


def new_user() -> User:
    user_id = next(_user_ids)
    return User(user_id, f"User {user_id}")


def slow_link(site: VideoServer, clip: bytes, seconds: float) -> str:
    path = f"/fair/link-{next(_paths)}.mp4"
    site.set_route(path, Trickle(clip, seconds))
    return site.url(path)


def post(api: FakeBotApi, user: User, url: str) -> Post:
    at = time.monotonic()
    return Post(user, api.send_text(Chat.private(user), user, url), at)


async def video_of(api: FakeBotApi, sent: Post) -> VideoRecord:
    def arrived() -> VideoRecord | None:
        return next((v for v in api.videos(sent.user.id) if v.reply_to == sent.message_id), None)

    video: VideoRecord = await api.wait_for(arrived, timeout=JOB_TIMEOUT_SECONDS)
    return video


async def one_job_seconds(api: FakeBotApi, site: VideoServer, clip: bytes, args: argparse.Namespace) -> float:
    """The median duration of a job run alone, post to video, on the idle bot."""
    runs = []
    for _ in range(args.single_runs):
        sent = post(api, new_user(), slow_link(site, clip, args.trickle_seconds))
        runs.append((await video_of(api, sent)).at - sent.at)
        await asyncio.sleep(0.3)  # its row's deletion commits before the next post
    return statistics.median(runs)


def handled(db: Path, chat_id: int) -> int:
    """The links of this chat that are jobs (each job's handled-URL mark commits with it)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as connection:
        (count,) = connection.execute(
            "SELECT count(*) FROM handled_urls WHERE chat_id = ?", (chat_id,)
        ).fetchone()
    return int(count)


async def light_waits(
    api: FakeBotApi, site: VideoServer, clip: bytes, db: Path, args: argparse.Namespace
) -> list[float]:
    """The heavy user's backlog, then the light users' links: each light user's post-to-video."""
    heavy = new_user()
    for _ in range(args.heavy_links):
        post(api, heavy, slow_link(site, clip, args.trickle_seconds))
    deadline = time.monotonic() + JOB_TIMEOUT_SECONDS
    while handled(db, heavy.id) < args.heavy_links:  # all of them are jobs before anyone else posts
        if time.monotonic() > deadline:
            raise harness.BenchFailed("the heavy user's links never all became jobs")
        await asyncio.sleep(0.05)
    light = [
        post(api, new_user(), slow_link(site, clip, args.trickle_seconds)) for _ in range(args.light_users)
    ]
    waits = [(await video_of(api, sent)).at - sent.at for sent in light]
    heavy_videos = await api.wait_for(
        lambda: len(api.videos(heavy.id)) >= args.heavy_links, timeout=JOB_TIMEOUT_SECONDS
    )
    bench.expect(bool(heavy_videos), "the heavy user's videos never all arrived")
    return waits


def p95(values: list[float]) -> float:
    """Nearest rank: with few samples, the largest that 95 % of them do not exceed."""
    ordered = sorted(values)
    return ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]


@dataclass(frozen=True, slots=True)
class OrderResult:
    order: str
    job_seconds: float
    waits: list[float]

    @property
    def in_jobs(self) -> list[float]:
        return [wait / self.job_seconds for wait in self.waits]


async def measure_order(order: str, clip_dir: Path, root: Path, args: argparse.Namespace) -> OrderResult:
    async with VideoServer(clip_dir) as site, FakeBotApi() as api:
        data = root / f"data-{order}"
        env = bot_environment(
            api,
            data,
            VIDRELAY_JOB_CONCURRENCY=str(CONCURRENCY),
            VIDRELAY_YTDLP_CONCURRENCY=str(CONCURRENCY),
            VIDRELAY_MAX_QUEUED_PER_USER=str(args.heavy_links + 10),
            VIDRELAY_QUEUE_ORDER=order,
            VIDRELAY_SHUTDOWN_GRACE_SECONDS="5",
        )
        bot = BotProcess(env, root / f"bot-{order}.log")
        try:
            await bot.start(api)
            async with harness.alive(bot.wait(JOB_TIMEOUT_SECONDS * 10), "the bot"):
                clip = site.clip("medium").read_bytes()
                job_seconds = await one_job_seconds(api, site, clip, args)
                waits = await light_waits(api, site, clip, data / "vidrelay.db", args)
        except Exception:
            print(f"the bench failed; the bot's log:\n{bot.log()}", file=sys.stderr)
            raise
        finally:
            if bot.running:
                await bot.terminate()
    result = OrderResult(order, job_seconds, waits)
    shown = ", ".join(f"{w:.2f}" for w in sorted(result.in_jobs))
    print(f"{order}: one job {job_seconds:.2f} s; light users waited {shown} job durations")
    return result


def _clips_cache() -> Path:
    cache_dir = Path.home() / ".cache" / "vidrelay" / "clips"
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir


async def measure(args: argparse.Namespace) -> None:
    bench.setup(libraries=("yt-dlp",), concurrency=CONCURRENCY, clip="medium")
    with tempfile.TemporaryDirectory(prefix="vidrelay-bench-fair-") as tmp:
        results = {order: await measure_order(order, _clips_cache(), Path(tmp), args) for order in ORDERS}
    fair, fifo = results["fair"].in_jobs, results["fifo"].in_jobs
    bench.expect(len(fair) == len(fifo) == args.light_users, "a light user's video is missing")
    bench.figures(
        fair_p50=statistics.median(fair),
        fair_p95=p95(fair),
        fifo_p50=statistics.median(fifo),
        fifo_p95=p95(fifo),
        job_s=results["fair"].job_seconds,
        fifo_job_s=results["fifo"].job_seconds,
        goal_met=p95(fair) <= 2.0,
    )


if __name__ == "__main__":
    bench.run(measure, bench.parse())
