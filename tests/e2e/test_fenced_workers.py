"""Fencing reaches Telegram, on PostgreSQL with real processes (one ingest, two workers): a
worker paused (SIGSTOP) while it holds a download, past its lease, and resumed after the other
worker took the job over and delivered it, makes not one Telegram call after the takeover — no
progress edit, no status line, no second video; a worker cut off from the database (a proxy that
stops forwarding) stops its attempt when its lease ends, so its download finishing later sends
nothing. Who made each call is the fake Bot API's call log's `client` (each process names
itself in its User-Agent)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from testkit.bot_process import BotProcess, bot_environment
from testkit.tcp_proxy import TcpProxy
from testkit.telegram import Chat, FakeBotApi, StoredMessage
from testkit.video_site import VideoServer
from testkit.video_site.behaviours import Body, Trickle
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, sha256_of, until_logged
from tests.e2e.deployment import LEASE_SECONDS, Deployment, print_logs
from tests.e2e.test_scale_out import _holder_of_the_download, deployment, holder_pid

__all__ = ["deployment"]  # the fixture: one ingest, two workers

pytestmark = pytest.mark.slow


async def test_a_worker_paused_past_its_lease_says_nothing_after_the_new_holder_took_over(
    deployment: Deployment,
) -> None:
    api, site = deployment.api, deployment.site
    clip = site.clip("medium")
    path = "/fence/paused.mp4"
    site.set_route(path, Trickle(clip.read_bytes(), seconds=30))  # progress, slowly
    user = new_user()
    message = api.send_text(Chat.private(user), user, site.url(path))
    stale = await _holder_of_the_download(deployment, path)
    await api.wait_for(
        lambda: any(c.client.startswith(stale.agent) for c in api.calls_of("editMessageText")),
        timeout=WAIT_SECONDS,
    )

    stale.pause()
    try:
        site.set_route(path, Body(clip.read_bytes(), "video/mp4"))  # for whoever asks next
        await holder_pid(deployment, path, downloading=False, not_pid=stale.pid)
        took_over = time.monotonic()
        video = await api.wait_for(
            lambda: next((v for v in api.videos(user.id) if v.reply_to == message), None),
            timeout=WAIT_SECONDS,
        )
        assert video.sha256 == sha256_of(clip)
        [log] = [m for m in api.messages(user.id) if m.reply_to == message and m.video is None]
        await api.wait_for(
            lambda: "✅" in (_text(api.message(user.id, log.message_id))), timeout=WAIT_SECONDS
        )
    finally:
        stale.resume()
    await until_logged(stale, "job's attempt was stopped")
    # On its way out the stopped attempt leaves its log message to the new holder and says so:
    # from that line on nothing of it can reach the chat.
    await until_logged(stale, "log message left to the job's new holder")

    late = [c for c in api.calls if c.client.startswith(stale.agent) and c.at > took_over]
    assert [(c.method, c.params) for c in late if c.method != "getUpdates"] == []
    assert [v.reply_to for v in api.videos(user.id)] == [message]  # exactly one sendVideo
    assert len(api.calls_of("sendVideo")) == 1
    assert "✅" in _text(api.message(user.id, log.message_id))  # the last word stays the new holder's
    assert stale.running


def _text(message: StoredMessage | None) -> str:
    return (message.text or "") if message is not None else ""


@pytest.fixture
async def cut_off(pg_dsn: str, tmp_path: Path) -> AsyncIterator[tuple[Deployment, TcpProxy]]:
    """One ingest and worker A, A's database connections through a proxy the test silences;
    worker B (direct) is started by the test once A is cut off."""
    port = urlsplit(pg_dsn).port
    assert port is not None
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api, TcpProxy("127.0.0.1", port) as proxy:

        def process(role: str, name: str, dsn: str) -> BotProcess:
            env = bot_environment(
                api,
                tmp_path / name,
                VIDRELAY_STORE="postgres",
                VIDRELAY_DATABASE_URL=dsn,
                VIDRELAY_LEASE_SECONDS=str(LEASE_SECONDS),
            )
            return BotProcess(env, tmp_path / f"{name}.log", role=role)

        ingest = process("ingest", "ingest", pg_dsn)
        workers = [
            process("worker", "worker-a", proxy.dsn_through(pg_dsn, port)),
            process("worker", "worker-b", pg_dsn),
        ]
        made = Deployment(api, site, pg_dsn, ingest, workers, tmp_path, {})
        try:
            await ingest.start(api)
            await workers[0].spawn()
            yield made, proxy
        finally:
            for bot in (ingest, *workers):
                await bot.close()
            print_logs(tmp_path)


async def test_a_worker_cut_off_from_the_database_stops_at_its_lease_end_and_never_sends(
    cut_off: tuple[Deployment, TcpProxy],
) -> None:
    deployment, proxy = cut_off
    api, site = deployment.api, deployment.site
    a, b = deployment.workers
    clip = site.clip("medium")
    path = "/fence/cut.mp4"
    site.set_route(path, Trickle(clip.read_bytes(), seconds=12))  # done well after A's lease ends
    user = new_user()
    message = api.send_text(Chat.private(user), user, site.url(path))
    assert await holder_pid(deployment, path) == a.pid

    proxy.silence()  # A's database calls neither return nor fail from now on
    await b.spawn()
    await holder_pid(deployment, path, downloading=False, not_pid=a.pid)
    took_over = time.monotonic()
    video = await api.wait_for(
        lambda: next((v for v in api.videos(user.id) if v.reply_to == message), None), timeout=WAIT_SECONDS
    )
    assert video.sha256 == sha256_of(clip)
    await until_logged(a, "job's lease could not be renewed before its end: its attempt stops now")
    await until_logged(a, "log message left to the job's new holder")
    proxy.resume()

    late = [c for c in api.calls if c.client.startswith(a.agent) and c.at > took_over]
    assert [(c.method, c.params) for c in late] == []
    assert [v.reply_to for v in api.videos(user.id)] == [message]  # exactly one sendVideo
    assert len(api.calls_of("sendVideo")) == 1
    [log] = [m for m in api.messages(user.id) if m.reply_to == message and m.video is None]
    await api.wait_for(lambda: "✅" in _text(api.message(user.id, log.message_id)), timeout=WAIT_SECONDS)
