"""The bot split over PostgreSQL, as real processes: one `--role ingest`, two `--role worker`
(each on its own data folder), the fake Bot API and the local video site.

Each link is delivered exactly once, whichever worker takes it; a worker killed while it holds a
stalled download is replaced by the other within seconds, once its sessions are seen gone (its
lease, at the default 30 s, is only the fallback); a second ingest, or a database that cannot be
reached, refuses the start with one line.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from core.requests.job_names import DOWNLOAD_VIDEO
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi
from testkit.video_site import VideoServer
from testkit.video_site.behaviours import Body, Stall
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, sha256_of
from tests.e2e.deployment import Deployment
from tests.e2e.deployment import deployment as deployed

pytestmark = pytest.mark.slow


@pytest.fixture
async def deployment(pg_dsn: str, tmp_path: Path) -> AsyncIterator[Deployment]:
    async with (
        VideoServer(CLIPS_DIR) as site,
        FakeBotApi() as api,
        deployed(pg_dsn, tmp_path, site, api) as made,
    ):
        yield made


@pytest.fixture
async def long_leases(pg_dsn: str, tmp_path: Path) -> AsyncIterator[Deployment]:
    """The deployment at the default lease (30 s), so that what comes back sooner did not wait for it."""
    async with (
        VideoServer(CLIPS_DIR) as site,
        FakeBotApi() as api,
        deployed(pg_dsn, tmp_path, site, api, VIDRELAY_LEASE_SECONDS="30") as made,
    ):
        yield made


async def test_eight_links_from_eight_chats_are_each_delivered_exactly_once(deployment: Deployment) -> None:
    api, site = deployment.api, deployment.site
    clip = site.clip("short")
    sent = []
    for n in range(8):
        user = new_user()
        site.set_route(f"/scale/{n}.mp4", Body(clip.read_bytes(), "video/mp4"))
        sent.append((user, api.send_text(Chat.private(user), user, site.url(f"/scale/{n}.mp4"))))

    for user, message in sent:
        video = await api.wait_for(
            lambda u=user, m=message: next((v for v in api.videos(u.id) if v.reply_to == m), None),
            timeout=WAIT_SECONDS,
        )
        assert video.sha256 == sha256_of(clip)
    for user, message in sent:
        assert [v.reply_to for v in api.videos(user.id)] == [message]  # exactly once
    assert deployment.ingest.running
    assert all(w.running for w in deployment.workers)


async def test_each_link_has_exactly_one_status_message_from_ingest_to_worker(deployment: Deployment) -> None:
    """The ingest posts the link's log message; the worker, another process, carries on in it."""
    api, site = deployment.api, deployment.site
    clip = site.clip("short")
    sent = []
    for n in range(4):
        user = new_user()
        site.set_route(f"/status/{n}.mp4", Body(clip.read_bytes(), "video/mp4"))
        sent.append((user, api.send_text(Chat.private(user), user, site.url(f"/status/{n}.mp4"))))

    for user, message in sent:
        await api.wait_for(
            lambda u=user, m=message: next((v for v in api.videos(u.id) if v.reply_to == m), None),
            timeout=WAIT_SECONDS,
        )
    for user, message in sent:
        logs = [m for m in api.messages(user.id) if m.reply_to == message and m.video is None]
        assert len(logs) == 1, [m.text for m in logs]  # one status message per link
        [log] = logs
        await api.wait_for(lambda u=user, i=log.message_id: "✅" in (api.message(u.id, i).text or ""))


async def test_sigkill_of_the_worker_holding_a_stalled_download_lets_the_other_deliver_it(
    long_leases: Deployment,
) -> None:
    deployment = long_leases
    api, site = deployment.api, deployment.site
    clip = site.clip("short")
    path = "/scale/stalled.mp4"
    site.set_route(path, Stall())
    user = new_user()
    message = api.send_text(Chat.private(user), user, site.url(path))
    holder = await _holder_of_the_download(deployment, path)

    site.set_route(path, Body(clip.read_bytes(), "video/mp4"))  # for whoever asks next
    assert api.videos(user.id) == []
    await holder.kill()
    killed_at = time.monotonic()

    video = await api.wait_for(
        lambda: next((v for v in api.videos(user.id) if v.reply_to == message), None), timeout=WAIT_SECONDS
    )
    print(f"delivered by the other worker {time.monotonic() - killed_at:.1f} s after the SIGKILL")
    assert video.sha256 == sha256_of(clip)
    [other] = [w for w in deployment.workers if w is not holder]
    assert "came back from a worker whose sessions ended" in other.log()  # not by the lease's end
    assert other.running
    assert not holder.running  # so the video came from the other worker
    assert await _until_downloads_settled(deployment.dsn) == (0, 0)
    assert [v.reply_to for v in api.videos(user.id)] == [message]  # exactly once


async def _holder_of_the_download(deployment: Deployment, path: str) -> BotProcess:
    """The worker whose claim holds the download of `path`, once the site is stalling it."""
    pid = await holder_pid(deployment, path)
    [worker] = [w for w in deployment.workers if w.pid == pid]
    return worker


async def holder_pid(deployment: Deployment, path: str, *, downloading: bool = True, not_pid: int = 0) -> int:
    """The pid of the process whose claim holds `path`'s job (a worker id is host:pid:random),
    once the site is serving it (`downloading`), and once it is not `not_pid`'s."""
    deadline = time.monotonic() + WAIT_SECONDS
    connection = await asyncpg.connect(deployment.dsn)
    try:
        while True:
            served = any(r.path == path and r.finished is None for r in deployment.site.requests)
            holder = await connection.fetchval(
                "SELECT claimed_by FROM jobs WHERE claimed_by IS NOT NULL AND payload LIKE $1", f"%{path}%"
            )
            pid = int(holder.split(":")[1]) if holder is not None else 0
            if pid and pid != not_pid and (served or not downloading):
                return pid
            assert time.monotonic() < deadline, f"{path}'s job was never held so"
            await asyncio.sleep(0.05)
    finally:
        await connection.close()


async def _until_downloads_settled(dsn: str) -> tuple[int, int]:
    """(download rows left, dead letters) once no download row is left, or at the deadline."""
    deadline = time.monotonic() + WAIT_SECONDS
    connection = await asyncpg.connect(dsn)
    try:
        while True:
            row = await connection.fetchrow(
                "SELECT (SELECT count(*) FROM jobs WHERE name = $1), (SELECT count(*) FROM failed_jobs)",
                DOWNLOAD_VIDEO,
            )
            assert row is not None
            if row[0] == 0 or time.monotonic() > deadline:
                return row[0], row[1]
            await asyncio.sleep(0.05)
    finally:
        await connection.close()


async def test_a_second_ingest_on_the_database_is_refused_with_one_line(
    deployment: Deployment, tmp_path: Path
) -> None:
    env = bot_environment(
        deployment.api, tmp_path / "second", VIDRELAY_STORE="postgres", VIDRELAY_DATABASE_URL=deployment.dsn
    )
    second = BotProcess(env, tmp_path / "second.log", role="ingest")
    await second.spawn()

    assert await second.wait(timeout=WAIT_SECONDS) == 2
    [line] = second.log().strip().splitlines()
    assert line.startswith("vidrelay: another vidrelay ingest is running on this database (vidrelay ingest ")
    assert f"pid {deployment.ingest.pid})" in line
    assert deployment.ingest.running


@pytest.mark.parametrize("role", ["all", "ingest", "worker"])
async def test_an_unreachable_database_refuses_the_start_with_one_masked_line(
    tmp_path: Path, role: str
) -> None:
    async with FakeBotApi() as api:
        dsn = "postgresql://vidrelay:s3cret-pw@127.0.0.1:9/vidrelay"  # port 9: nothing listens
        env = bot_environment(api, tmp_path / "data", VIDRELAY_STORE="postgres", VIDRELAY_DATABASE_URL=dsn)
        bot = BotProcess(env, tmp_path / "bot.log", role=role)
        await bot.spawn()

        assert await bot.wait(timeout=WAIT_SECONDS) == 2
    [line] = bot.log().strip().splitlines()
    assert line.startswith(
        "vidrelay: cannot connect to PostgreSQL at postgresql://vidrelay:***@127.0.0.1:9/vidrelay"
    )
    assert "s3cret-pw" not in line


async def test_a_one_letter_password_is_masked_in_the_start_refusal_and_nowhere_else(tmp_path: Path) -> None:
    async with FakeBotApi() as api:
        dsn = "postgresql://vidrelay:v@127.0.0.1:9/vidrelay"  # v: a letter of the user and database names
        env = bot_environment(api, tmp_path / "data", VIDRELAY_STORE="postgres", VIDRELAY_DATABASE_URL=dsn)
        bot = BotProcess(env, tmp_path / "bot.log")
        await bot.spawn()

        assert await bot.wait(timeout=WAIT_SECONDS) == 2
    [line] = bot.log().strip().splitlines()
    assert line.startswith(
        "vidrelay: cannot connect to PostgreSQL at postgresql://vidrelay:***@127.0.0.1:9/vidrelay: "
    )
