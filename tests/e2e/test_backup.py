"""`vidrelay backup` against the store of a bot that is busy delivering."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from testkit.telegram import Chat
from testkit.video_site import Body, Trickle
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, new_user
from tests.support.cli import cli_env, vidrelay

pytestmark = pytest.mark.slow

LINKS = 20


@pytest_asyncio.fixture
async def busy(tmp_path: Path) -> AsyncIterator[Stack]:
    async for stack in _stack(tmp_path, VIDRELAY_JOB_CONCURRENCY="3"):
        yield stack


def committed(db_path: Path) -> tuple[dict[int, tuple[int, int]], set[str]]:
    """Job id → (chat, message) and blob keys, as committed in the file right now."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        jobs = {
            job_id: (payload["chat_id"], payload["message_id"])
            for job_id, payload in (
                (row[0], json.loads(row[1])) for row in db.execute("SELECT id, payload FROM jobs")
            )
            if "chat_id" in payload
        }
        blobs = {row[0] for row in db.execute("SELECT key FROM blobs")}
    return jobs, blobs


async def test_a_backup_taken_while_the_bot_delivers_20_links_holds_every_row_committed_before_it(
    busy: Stack,
) -> None:
    users = [new_user() for _ in range(4)]  # five links each: under the per-user queue cap
    clip = busy.site.clip("short").read_bytes()
    sent: list[tuple[int, int]] = []
    for n in range(LINKS):
        path = f"/e2e/backup/{n}.mp4"
        busy.site.set_route(path, Trickle(clip, seconds=1.5))  # deliveries overlap the backup
        user = users[n % len(users)]
        sent.append((user.id, busy.api.send_text(Chat.private(user), user, busy.site.url(path))))
    await busy.api.wait_for(lambda: len(busy.api.videos()) >= 3, timeout=WAIT_SECONDS)

    live = busy.root / "data" / "vidrelay.db"
    jobs_before, blobs_before = committed(live)
    delivered_before = len(busy.api.videos())
    copy = busy.root / "backup.db"
    ran = await vidrelay("backup", str(copy), env=cli_env(data_dir=str(busy.root / "data")))
    backup_ended = time.monotonic()
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith(f"backed up {live} to {copy} (")

    assert delivered_before < LINKS  # the bot was busy when the backup began
    assert jobs_before
    with sqlite3.connect(copy) as db:
        assert list(db.execute("PRAGMA integrity_check")) == [("ok",)]
    jobs_copied, blobs_copied = committed(copy)
    assert blobs_before <= blobs_copied
    # A job row committed before the backup is in the copy, unless the bot finished it (its video
    # was sent) before the backup ended: a row is deleted only once its work is done.
    videos = {(v.chat_id, v.reply_to): v.at for v in busy.api.videos()}
    for job_id, message in jobs_before.items():
        if job_id not in jobs_copied:
            assert videos.get(message, float("inf")) <= backup_ended, f"job {job_id} lost from the copy"
    assert set(jobs_copied) & set(jobs_before)  # the copy caught the queue mid-way

    await busy.api.wait_for(lambda: len(busy.api.videos()) == LINKS, timeout=WAIT_SECONDS * 2)
    assert sorted((v.chat_id, v.reply_to) for v in busy.api.videos()) == sorted(sent)


async def delivered(stack: Stack, path: str) -> int:
    user = new_user()
    stack.site.set_route(path, Body(stack.site.clip("short").read_bytes(), "video/mp4"))
    message_id = stack.api.send_text(Chat.private(user), user, stack.site.url(path))
    await stack.video_reply(user.id, message_id)
    return user.id


async def test_one_run_per_data_folder_and_restore_only_once_the_bot_stopped(fresh: Stack) -> None:
    data = fresh.root / "data"
    env = fresh.bot._env
    first = await delivered(fresh, "/e2e/restore/before.mp4")
    copy = fresh.root / "before.db"
    assert (await vidrelay("backup", str(copy), env=env)).code == 0

    second = await vidrelay("run", env=env)
    assert second.code == 2
    holder = f"{data} is in use by vidrelay run (pid {fresh.bot.pid} on {socket.gethostname()})"
    assert second.stderr.splitlines() == [f"vidrelay: {holder}: one `vidrelay run` per data folder"]
    assert fresh.bot.running

    await delivered(fresh, "/e2e/restore/after.mp4")  # a blob row the backup does not hold
    refused = await vidrelay("restore", str(copy), env=env)
    assert refused.code == 2
    assert refused.stderr.splitlines() == [f"vidrelay: {holder}: stop it before a restore"]
    assert len(committed(data / "vidrelay.db")[1]) == 2  # untouched

    assert await fresh.bot.terminate() == 0
    restored = await vidrelay("restore", str(copy), env=env)
    assert restored.code == 0, restored.stderr
    assert restored.lines[0].startswith(f"restored {copy} as {data / 'vidrelay.db'} (")
    [kept] = data.glob("vidrelay.db.before-restore-*[0-9]")
    assert restored.lines[1] == f"the store before it is kept as {kept}"
    assert len(committed(data / "vidrelay.db")[1]) == 1
    assert len(committed(kept)[1]) == 2

    await fresh.new_bot(VIDRELAY_JOB_CONCURRENCY="1").start(fresh.api)  # on the restored store
    await delivered(fresh, "/e2e/restore/restarted.mp4")
    assert [v.chat_id for v in fresh.api.videos()][:1] == [first]


async def test_backups_into_a_folder_are_dated_files_only_the_owner_reads_and_restore_keeps_it_so(
    fresh: Stack,
) -> None:
    data = fresh.root / "data"
    env = fresh.bot._env
    await delivered(fresh, "/e2e/backup-folder/one.mp4")
    folder = fresh.root / "backups" / "nightly"  # neither exists yet

    made = [await vidrelay("backup", f"{folder}/", env=env) for _ in range(2)]
    assert [ran.code for ran in made] == [0, 0], [ran.stderr for ran in made]
    files = sorted(folder.iterdir())
    assert len(files) == 2  # the second run kept the first one
    for file in files:
        assert re.fullmatch(r"vidrelay-\d{8}-\d{6}(-\d+)?\.db", file.name), file.name
        assert stat.S_IMODE(file.stat().st_mode) == 0o600  # it holds the install's signing secret
    assert {ran.lines[0].split(" to ")[1].split(" (")[0] for ran in made} == {str(f) for f in files}

    nowhere = fresh.root / "no-such-folder" / "copy.db"
    refused = await vidrelay("backup", str(nowhere), env=env)
    assert refused.code == 1
    assert refused.stderr.splitlines() == [
        f"vidrelay: cannot write the backup {nowhere}: the folder {nowhere.parent} does not exist"
    ]

    assert await fresh.bot.terminate() == 0
    restored = await vidrelay("restore", str(files[0]), env=env)
    assert restored.code == 0, restored.stderr
    assert stat.S_IMODE((data / "vidrelay.db").stat().st_mode) == 0o600
