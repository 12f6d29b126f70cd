"""The metrics endpoint of the real bot process, read while it delivers links on the fake Bot API."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import aiohttp
import pytest

from testkit.bot_process import BotProcess, bot_environment
from testkit.loopback import free_port
from testkit.telegram import Chat, FakeBotApi
from testkit.video_site import Body, FailThen, Trickle, VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, get, new_user
from tests.support.prometheus_text import values

pytestmark = pytest.mark.slow


async def until_status(url: str, status: int) -> str:
    """Ask `url` until it answers `status` (an event in another process: there is no other news)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        answered, text = await get(url)
        if answered == status:
            return text
        assert time.monotonic() < deadline, f"{url} kept answering {answered}: {text}"
        await asyncio.sleep(0.1)


async def test_metrics_move_as_the_bot_delivers_and_healthz_follows_its_life(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        env = bot_environment(
            api, tmp_path / "data", VIDRELAY_METRICS_PORT=str(port), VIDRELAY_JOB_CONCURRENCY="2"
        )
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            assert await get(f"{base}/healthz") == (200, "ok\n")

            short = site.clip("short").read_bytes()
            site.set_route("/m/one.mp4", Body(short, "video/mp4"))
            site.set_route("/m/two.mp4", Body(short, "video/mp4"))
            site.set_route("/m/flaky.mp4", FailThen(503, 1, Body(short, "video/mp4")))
            api.fail_next("sendVideo", code=429, retry_after=1)  # FloodControl waits it out
            # A chat each: Telegram's pace in one chat (about a message a second) is not measured here.
            good = [
                (user.id, api.send_text(Chat.private(user), user, site.url(f"/m/{name}.mp4")))
                for user, name in ((new_user(), name) for name in ("one", "two", "flaky"))
            ]
            loser = new_user()
            dead = api.send_text(Chat.private(loser), loser, site.url("/m/missing.mp4"))  # a 404: for good
            await api.wait_for(
                lambda: all(message in {v.reply_to for v in api.videos(chat)} for chat, message in good),
                timeout=WAIT_SECONDS,
            )
            await api.wait_for(
                lambda: any(m.reply_to == dead and "💥" in (m.text or "") for m in api.messages(loser.id)),
                timeout=WAIT_SECONDS,
            )

            status, text = await get(f"{base}/metrics")
            assert status == 200
            seen = values(text)
            name = 'job_name="download_video"'
            assert seen[f"vidrelay_jobs_enqueued_total{{{name}}}"] == 4
            assert seen[f"vidrelay_jobs_completed_total{{{name}}}"] == 3
            assert seen[f"vidrelay_jobs_retried_total{{{name}}}"] == 1  # the 503 once
            assert seen[f"vidrelay_jobs_dead_total{{{name}}}"] == 1
            assert seen[f"vidrelay_job_claim_to_done_seconds_count{{{name}}}"] == 3
            assert seen["vidrelay_post_to_video_seconds_count"] == 3
            assert seen["vidrelay_post_to_video_seconds_sum"] > 0
            assert seen['vidrelay_telegram_api_errors_total{code="429",method="sendVideo"}'] == 1
            assert seen["vidrelay_telegram_retry_after_seconds_count"] == 1
            assert seen["vidrelay_telegram_retry_after_seconds_sum"] == 1
            assert seen["vidrelay_queue_depth"] == 0
            assert seen["vidrelay_dead_letters"] == 1
            assert seen["vidrelay_workers_live"] == seen["vidrelay_workers_configured"] == 2
            [version] = [k for k in seen if k.startswith("vidrelay_ytdlp_info{")]
            assert 'version="unknown"' not in version

            # SIGTERM with a download in flight: not receiving updates any more (503) while the
            # download finishes, and the endpoint closes with the process.
            site.set_route("/m/slow.mp4", Trickle(short, seconds=4))
            user = new_user()
            slow = api.send_text(Chat.private(user), user, site.url("/m/slow.mp4"))
            await api.wait_for(lambda: site.hits("/m/slow.mp4") >= 2, timeout=WAIT_SECONDS)
            terminating = asyncio.ensure_future(bot.terminate())
            assert "not receiving updates" in await until_status(f"{base}/healthz", 503)
            assert await terminating == 0
            assert slow in {v.reply_to for v in api.videos(user.id)}
            with pytest.raises(aiohttp.ClientConnectorError):
                await get(f"{base}/healthz")
        finally:
            await bot.close()


def listening_addresses(port: int) -> set[str]:
    """The local addresses a socket listens on with this port, from /proc/net/tcp (LISTEN = 0A)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if int(hex_port, 16) == port and state == "0A":
            found.add(".".join(str(b) for b in reversed(bytes.fromhex(address))))
    return found


async def test_the_metrics_listen_on_the_address_the_operator_chose(tmp_path: Path) -> None:
    port = free_port()
    async with FakeBotApi() as api:
        env = bot_environment(
            api, tmp_path / "data", VIDRELAY_METRICS_PORT=str(port), VIDRELAY_METRICS_HOST="127.0.0.1"
        )
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            assert await get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
            assert listening_addresses(port) == {"127.0.0.1"}
            _, text = await get(f"http://127.0.0.1:{port}/metrics")
        finally:
            await bot.close()
    seen = values(text)
    assert seen["process_resident_memory_bytes"] > 0
    assert any(name.startswith("vidrelay_build_info{") for name in seen)
    assert seen["vidrelay_workers_configured"] == 3


async def test_a_metrics_port_in_use_exits_2_with_one_line(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with FakeBotApi() as api:
            env = bot_environment(
                api, tmp_path / "data", VIDRELAY_METRICS_PORT=str(port), VIDRELAY_METRICS_HOST="127.0.0.1"
            )
            bot = BotProcess(env, tmp_path / "bot.log")
            await bot.spawn()
            assert await bot.wait(timeout=WAIT_SECONDS) == 2
    assert bot.log().splitlines() == [
        f"vidrelay: cannot listen on 127.0.0.1:{port} for /metrics and /healthz (VIDRELAY_METRICS_PORT):"
        " Address already in use"
    ]
