"""End-to-end throughput of the real bot: parallel jobs, cache-hit latency, idle memory.

`python bench/e2e_throughput.py [--quick]` — everything on 127.0.0.1: the fake Bot API and the
local video site run in this process, the bot is `vidrelay run` as a child process (real yt-dlp, a
temporary SQLite store). Human-readable lines first; then the figures line
`e2e_throughput: parallel_ratio=X.XX cache_hit_p50_ms=X idle_rss_mb=X ...`.

Targets (issue 5): parallel_ratio ≤ 0.45, cache-hit p50 ≤ 50 ms, idle RSS ≤ 200 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import itertools
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import harness
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import CallRecord, Chat, FakeBotApi, User, VideoRecord
from testkit.video_site import Trickle, VideoServer

bench = harness.Bench("e2e_throughput", __doc__)
bench.size("--parallel-jobs", 6, quick=3, help="jobs posted at once, each from its own chat")
bench.size(
    "--single-runs",
    3,
    quick=1,
    help="single jobs before and as many after the parallel run (the box's load drifts)",
)
bench.size("--idle-settle-seconds", 1.0, quick=0.2, help="pause before an RSS reading")
bench.size("--cache-hits", 30, quick=3, help="cache hits measured one after another")
bench.size("--trickle-seconds", 2.0, quick=0.2, help="how long the site takes to serve the clip")
bench.size(
    "--warm-idle-seconds",
    10.0,
    quick=1.0,
    help="the warm yt-dlp server's idle exit (the bot's default is 120 s): the bench sees it idle again",
)
CONCURRENCY = 3
JOB_TIMEOUT_SECONDS = 60.0
SETTLE_SECONDS = 0.3
"""After a video arrives its job still commits; the next measurement starts once that is done."""

_user_ids = itertools.count(70_001)
_slow_paths = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Post:
    chat: Chat
    message_id: int
    at: float
    """time.monotonic() just before the update was queued: the fake's records use the same clock."""


@dataclass(frozen=True, slots=True)
class Delivered:
    path: str
    sent: Post
    video: VideoRecord

    @property
    def seconds(self) -> float:
        return self.video.at - self.sent.at


# ---- talking to the bot


@dataclass(frozen=True, slots=True)
class Slow:
    """The slow link's bytes and how long the site takes to serve them."""

    data: bytes
    seconds: float

    def path(self, site: VideoServer) -> str:
        """A new path each time, so no two jobs share a scrape or a download."""
        path = f"/slow/clip-{next(_slow_paths)}.mp4"
        site.set_route(path, Trickle(self.data, self.seconds))
        return path


def post(api: FakeBotApi, url: str) -> Post:
    """`url` from a user the bot has not seen: no pacing bucket or queued-job cap carries over."""
    user_id = next(_user_ids)
    user = User(user_id, f"User {user_id}")
    chat = Chat.private(user)
    at = time.monotonic()
    return Post(chat, api.send_text(chat, user, url), at)


def reply_video(api: FakeBotApi, sent: Post) -> VideoRecord | None:
    return next((v for v in api.videos(sent.chat.id) if v.reply_to == sent.message_id), None)


async def wait_video(api: FakeBotApi, sent: Post) -> VideoRecord:
    video = await api.wait_for(lambda: reply_video(api, sent), timeout=JOB_TIMEOUT_SECONDS)
    assert video is not None  # wait_for returns only a truthy value
    return video


async def wait_idle(api: FakeBotApi) -> None:
    """The last job has committed and the bot is long-polling: an update now is delivered at once."""
    await asyncio.sleep(SETTLE_SECONDS)
    await api.wait_for(lambda: api.polling, timeout=JOB_TIMEOUT_SECONDS)


# ---- the bot's processes


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat from field 3 on (the name in parentheses may hold spaces)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int(_stat_fields(int(entry.name))[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def rss_kib(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("VmRSS:")), 0)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User + system CPU of the process itself, and of the children it has waited for."""
    fields = _stat_fields(pid)
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(map(int, fields[11:13])) / ticks, sum(map(int, fields[13:15])) / ticks


# ---- 1. parallelism


async def deliver(api: FakeBotApi, path: str, sent: Post) -> Delivered:
    return Delivered(path, sent, await wait_video(api, sent))


async def single_job(api: FakeBotApi, site: VideoServer, slow: Slow) -> Delivered:
    path = slow.path(site)
    await wait_idle(api)
    return await deliver(api, path, post(api, site.url(path)))


async def parallel_jobs(api: FakeBotApi, site: VideoServer, slow: Slow, count: int) -> list[Delivered]:
    paths = [slow.path(site) for _ in range(count)]
    await wait_idle(api)
    posts = [post(api, site.url(path)) for path in paths]
    return [await deliver(api, path, sent) for path, sent in zip(paths, posts, strict=True)]


def milestones(site: VideoServer, job: Delivered) -> tuple[float, float, float, float]:
    """Seconds after the post: yt-dlp's scrape request, its download request, the download's last
    byte, and the video's arrival at the fake Bot API."""
    gets = [r for r in site.requests if r.path == job.path and r.method == "GET"]
    scrape, download = gets[0], gets[-1]
    last_byte = download.finished if download.finished is not None else float("nan")
    origin = job.sent.at
    return scrape.started - origin, download.started - origin, last_byte - origin, job.video.at - origin


def describe_single(site: VideoServer, jobs: list[Delivered]) -> None:
    scrape, download, last_byte, video = (
        statistics.median(column) for column in zip(*(milestones(site, j) for j in jobs), strict=True)
    )
    print(
        f"  their median milestones after the post: yt-dlp scrape request +{scrape:.2f} s, download request "
        f"+{download:.2f} s, last byte +{last_byte:.2f} s, video +{video:.2f} s"
    )


def describe_parallel(site: VideoServer, jobs: list[Delivered], cpu: tuple[float, float]) -> None:
    scrapes = sorted(milestones(site, j)[0] for j in jobs)
    print(f"  yt-dlp scrape requests at +{', +'.join(f'{t:.2f}' for t in scrapes)} s after the first post")
    print(
        f"  CPU meanwhile on {os.cpu_count()} core(s): bot {cpu[0]:.2f} s, "
        f"its reaped children {cpu[1]:.2f} s (ffprobe; warm yt-dlp runs are reaped by their server)"
    )


async def single_jobs(api: FakeBotApi, site: VideoServer, slow: Slow, runs: int) -> list[Delivered]:
    return [await single_job(api, site, slow) for _ in range(runs)]


@dataclass(frozen=True, slots=True)
class Parallelism:
    ratio: float
    wall: float
    single: float


async def measure_parallelism(
    api: FakeBotApi, site: VideoServer, slow: Slow, bot_pid: int, args: argparse.Namespace
) -> Parallelism:
    # The first job pays for cold disk caches and first imports; it is shown, not counted.
    warm_up = await single_job(api, site, slow)
    print(f"warm-up job (cold caches, not counted): {warm_up.seconds:.2f} s")
    singles = await single_jobs(api, site, slow, args.single_runs)
    cpu_before = cpu_seconds(bot_pid)
    count = args.parallel_jobs
    jobs = await parallel_jobs(api, site, slow, count)
    cpu_after = cpu_seconds(bot_pid)
    singles += await single_jobs(api, site, slow, args.single_runs)
    single = statistics.median(j.seconds for j in singles)
    print(f"single job alone, {len(singles)} runs around the parallel one: {_seconds(singles)} s")
    describe_single(site, singles)
    wall = max(j.video.at for j in jobs) - min(j.sent.at for j in jobs)
    ratio = wall / (count * single)
    print(
        f"{count} jobs from {count} chats at concurrency {CONCURRENCY}: {wall:.2f} s wall "
        f"from the first post to the last video, vs {count} × {single:.2f} s (median single) = "
        f"{count * single:.2f} s → ratio {ratio:.2f} (target ≤ 0.45; "
        f"the site served at most {site.max_concurrent} requests at once)"
    )
    describe_parallel(site, jobs, (cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1]))
    return Parallelism(ratio, wall, single)


# ---- 2. cache-hit latency


def first_call(api: FakeBotApi, chat_id: int, method: str | None = None) -> CallRecord | None:
    calls = api.calls if method is None else api.calls_of(method)
    return next((c for c in calls if c.chat_id == chat_id and c.ok), None)


@dataclass(frozen=True, slots=True)
class CacheHit:
    first_method: str
    first_ms: float
    send_ms: float


async def cache_hit(api: FakeBotApi, url: str) -> CacheHit:
    """Time from the update to the bot's first Bot API call for the chat, and to its sendVideo.

    The fake does not record when the getUpdates call that delivered an update returned, so the
    clock starts when `send_text` queues the update while a long poll is waiting (`wait_idle`
    checked `api.polling`): the fake answers that poll at once, so this also counts the loopback
    hop to the bot. It stops at the sendVideo CallRecord's `at` (when the request arrived), and
    that video must have gone by file_id.
    """
    await wait_idle(api)
    sent = post(api, url)
    video = await wait_video(api, sent)
    send = first_call(api, sent.chat.id, "sendVideo")
    first = first_call(api, sent.chat.id)
    if video.source != "file_id" or send is None or first is None:
        raise RuntimeError(f"expected a sendVideo by file_id, got one by {video.source}")
    return CacheHit(first.method, (first.at - sent.at) * 1000, (send.at - sent.at) * 1000)


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[round(fraction * (len(sorted_values) - 1))]


async def measure_cache_hits(api: FakeBotApi, url: str, count: int) -> float:
    hits = [await cache_hit(api, url) for _ in range(count)]
    latencies = sorted(h.send_ms for h in hits)
    p50 = statistics.median(latencies)
    print(
        f"cache hit, update queued → sendVideo by file_id, {count} new chats one after another: "
        f"p50 {p50:.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, max {latencies[-1]:.1f} ms "
        "(target p50 ≤ 50)"
    )
    methods = ", ".join(f"{m} ×{n}" for m, n in collections.Counter(h.first_method for h in hits).items())
    first = statistics.median(h.first_ms for h in hits)
    print(f"  the bot's first call for the chat: {methods}; update → that call p50 {first:.1f} ms")
    return p50


async def cache(api: FakeBotApi, url: str) -> None:
    """One upload of `url`, so its file_id is known."""
    await wait_idle(api)
    await wait_video(api, post(api, url))


# ---- 3. idle memory


async def idle_rss(api: FakeBotApi, bot: BotProcess, when: str, settle: float, *, idle: bool = True) -> float:
    await asyncio.sleep(settle)
    await wait_idle(api)
    pids = [bot.pid, *descendants(bot.pid)]
    total = sum(rss_kib(pid) for pid in pids) / 1024
    target = " (target ≤ 200 MB)" if idle else ""
    print(f"{'idle ' if idle else ''}RSS {when}: {total:.1f} MB in {len(pids)} process(es){target}")
    return total


# ---- the run


def _seconds(jobs: list[Delivered]) -> str:
    return ", ".join(f"{j.seconds:.2f}" for j in jobs)


def _clips_cache() -> Path:
    cache_dir = Path.home() / ".cache" / "vidrelay" / "clips"
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir


async def measure_bot(api: FakeBotApi, site: VideoServer, bot: BotProcess, args: argparse.Namespace) -> None:
    settle = args.idle_settle_seconds
    rss_start = await idle_rss(api, bot, "after start", settle)
    slow = Slow(site.clip("medium").read_bytes(), args.trickle_seconds)
    print(f"slow link: the {len(slow.data) / 1000:.0f} kB medium clip trickled over {slow.seconds:g} s")
    parallel = await measure_parallelism(api, site, slow, bot.pid, args)
    cached = site.url(slow.path(site))
    await cache(api, cached)
    await idle_rss(
        api, bot, "right after the downloads, the warm yt-dlp server still alive", settle, idle=False
    )
    p50 = await measure_cache_hits(api, cached, args.cache_hits)
    await servers_gone(bot, args.warm_idle_seconds)
    rss_end = await idle_rss(
        api, bot, f"after the jobs, once the warm server idled out ({args.warm_idle_seconds:g} s)", settle
    )
    bench.figures(
        parallel_ratio=parallel.ratio,
        cache_hit_p50_ms=f"{p50:.1f}",
        idle_rss_start_mb=f"{rss_start:.1f}",
        idle_rss_end_mb=f"{rss_end:.1f}",
        single_job_s=parallel.single,
        parallel_wall_s=parallel.wall,
    )


async def servers_gone(bot: BotProcess, warm_idle_seconds: float) -> None:
    """The warm yt-dlp server exits after `warm_idle_seconds` without a run; wait for that, bounded."""
    deadline = time.monotonic() + warm_idle_seconds + 30
    while descendants(bot.pid):
        if time.monotonic() > deadline:
            raise harness.BenchFailed("the warm yt-dlp server did not exit when idle")
        await asyncio.sleep(0.2)


async def start(api: FakeBotApi, bot: BotProcess) -> None:
    started = time.monotonic()
    await bot.start(api)
    print(f"bot started and long-polling after {time.monotonic() - started:.2f} s")


async def stop(bot: BotProcess) -> int:
    """SIGTERM and the graceful stop; a bot that never started (or already died) needs none."""
    if not bot.running:
        return 1
    code = await bot.terminate()
    print(f"SIGTERM → the bot exited with {code}")
    return code


async def measure(args: argparse.Namespace) -> None:
    bench.setup(libraries=("yt-dlp", "aiogram"), concurrency=CONCURRENCY, clip="medium")
    with tempfile.TemporaryDirectory(prefix="vidrelay-bench-") as tmp:
        root = Path(tmp)
        async with VideoServer(_clips_cache()) as site, FakeBotApi() as api:
            env = bot_environment(
                api,
                root / "data",
                VIDRELAY_JOB_CONCURRENCY=str(CONCURRENCY),
                VIDRELAY_YTDLP_CONCURRENCY=str(CONCURRENCY),
                VIDRELAY_YTDLP_WARM_IDLE_SECONDS=str(args.warm_idle_seconds),
            )
            bot = BotProcess(env, root / "bot.log")
            try:
                await start(api, bot)
                async with harness.alive(bot.wait(JOB_TIMEOUT_SECONDS * 10), "the bot"):
                    await measure_bot(api, site, bot, args)
            except Exception:
                print(f"the bench failed; the bot's log:\n{bot.log()}", file=sys.stderr)
                raise
            finally:
                code = await stop(bot)
            bench.expect(code == 0, f"the bot exited with {code} on SIGTERM, not 0; its log:\n{bot.log()}")


if __name__ == "__main__":
    bench.run(measure, bench.parse())
