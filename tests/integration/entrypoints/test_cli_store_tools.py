"""`vidrelay jobs stats/purge/list/retry` and `vidrelay check` as real commands, on a real SQLite
file and a real PostgreSQL database, against rows written the way the bot writes them."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters.postgres import PostgresStore
from adapters.sqlite import SqliteStore
from adapters.system.clock import SystemClock
from entrypoints.durations import show_duration
from ports.jobs import NewJob
from ports.store import Store
from testkit.telegram import FakeBotApi
from tests.support.cli import Ran, cli_env, vidrelay

pytestmark = pytest.mark.slow

DAY = 86_400.0
WORKER = "cli-test-worker"


@dataclass(frozen=True)
class Deployment:
    kind: str
    settings: dict[str, str]
    open: Callable[[], Awaitable[Store]]

    async def run(self, *args: str, **overrides: str) -> Ran:
        return await vidrelay(*args, env=cli_env(**(self.settings | overrides)))


@pytest.fixture(params=["sqlite", "postgres"])
def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> Deployment:
    data = tmp_path / "data"
    data.mkdir()
    if request.param == "sqlite":
        return Deployment("sqlite", {"data_dir": str(data)}, lambda: SqliteStore.open(data / "vidrelay.db"))
    dsn: str = request.getfixturevalue("pg_dsn")  # an empty database: the first open migrates it
    settings = {"data_dir": str(data), "store": "postgres", "database_url": dsn}
    return Deployment(
        "postgres", settings, lambda: PostgresStore.open(dsn, node="cli-test", clock=SystemClock())
    )


async def failed(store: Store, name: str, failed_at: float) -> None:
    await store.enqueue(NewJob(name, {"url": f"https://example.com/{failed_at}"}, 3), failed_at - 60)
    job = await store.claim(WORKER, failed_at - 30, 30.0)
    assert job is not None
    await store.dead_letter(job.lease, "ERROR: [generic] Unsupported URL", failed_at)


async def fill(deployment: Deployment, now: float) -> None:
    """Failures 10 and 8 days and 1 hour old, two queued downloads (one due for an hour), one
    backing off: what a bot leaves behind after a week with a broken site."""
    store = await deployment.open()
    try:
        await failed(store, "update_ytdlp", now - 10 * DAY)
        await failed(store, "download_video", now - 8 * DAY)
        await failed(store, "download_video", now - 3600)
        await store.enqueue(NewJob("download_video", {"url": "https://example.com/a"}, 3), now - 3600)
        await store.enqueue(NewJob("download_video", {"url": "https://example.com/b"}, 3), now - 3000)
        await store.enqueue(NewJob("download_video", {"url": "https://example.com/c"}, 3), now - 2000)
        job = await store.claim(WORKER, now - 1000, 30.0)  # FIFO: the one due for an hour
        assert job is not None
        assert job.payload == {"url": "https://example.com/a"}
        await store.retry_later(job.lease, now + 600, "HTTP Error 503")
    finally:
        await store.close()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_stats_count_each_job_name_by_state(deployment: Deployment) -> None:
    now = time.time()
    await fill(deployment, now)

    ran = await deployment.run("jobs", "stats", "--json")

    assert ran.code == 0, ran.stderr
    stats = json.loads(ran.stdout)
    counts = {row["name"]: row for row in stats["jobs"]}
    assert [(n, r["queued"], r["backing_off"], r["failed"]) for n, r in counts.items()] == [
        ("download_video", 2, 1, 2),
        ("update_ytdlp", 0, 0, 1),
    ]
    download = counts["download_video"]
    assert download["oldest_due_at"] == pytest.approx(now - 3000)
    assert download["oldest_queued_age_seconds"] >= 3000
    assert download["last_failed_at"] == pytest.approx(now - 3600)
    assert (stats["total"]["queued"], stats["total"]["failed"], stats["total"]["running"]) == (2, 3, 0)


async def test_stats_as_a_table_with_the_totals_and_the_dead_letters(deployment: Deployment) -> None:
    now = time.time()
    await fill(deployment, now)

    ran = await deployment.run("jobs", "stats")

    waited = range(int(time.time() - now) + 2)  # however long the command took to run
    assert ran.code == 0, ran.stderr
    header, download, update, total, dead = ran.lines
    assert header.split() == [
        "job", "queued", "scheduled", "backing", "off", "running", "overdue", "failed", "oldest", "queued"
    ]  # fmt: skip
    assert download.split()[:7] == ["download_video", "2", "0", "1", "0", "0", "2"]
    assert download.split()[7] in {show_duration(3000 + s) for s in waited}  # due 3000 s ago
    assert update.split() == ["update_ytdlp", "0", "0", "0", "0", "0", "1", "-"]
    assert total.split()[:7] == ["all", "2", "0", "1", "0", "0", "3"]
    assert dead.startswith("3 dead-lettered, the last 1h")
    assert "vidrelay jobs list --failed" in dead


async def test_purge_older_than_a_week_keeps_recent_failures_and_the_queue(deployment: Deployment) -> None:
    now = time.time()
    await fill(deployment, now)

    ran = await deployment.run("jobs", "purge", "--failed", "--older-than", "7d")

    assert (ran.code, ran.lines) == (0, ["purged 2 failed job(s) that failed more than 7d ago"])
    listed = await deployment.run("jobs", "list", "--failed", "--json")
    [left] = [json.loads(line) for line in listed.lines]
    assert (left["name"], left["failed_at"]) == ("download_video", pytest.approx(now - 3600))
    assert len((await deployment.run("jobs", "list", "--json")).lines) == 3

    named = await deployment.run("jobs", "purge", "--name", "update_ytdlp")
    assert named.lines == ["purged 0 failed job(s) of update_ytdlp"]
    assert (await deployment.run("jobs", "purge")).lines == ["purged 1 failed job(s)"]
    assert (await deployment.run("jobs", "list", "--failed")).lines == ["(0 failed job(s))"]


async def test_retry_puts_the_failures_back_with_fresh_attempts(deployment: Deployment) -> None:
    await fill(deployment, time.time())

    ran = await deployment.run("jobs", "retry", "--all-failed")

    assert ran.code == 0
    assert ran.stdout.startswith("requeued 3 job(s): ")
    stats = json.loads((await deployment.run("jobs", "stats", "--json")).stdout)
    assert (stats["total"]["queued"], stats["total"]["failed"]) == (5, 0)
    queued = [json.loads(line) for line in (await deployment.run("jobs", "list", "--json")).lines]
    assert [job["attempts"] for job in queued[-3:]] == [0, 0, 0]


async def test_a_duration_that_is_not_one_is_a_usage_error(deployment: Deployment) -> None:
    ran = await deployment.run("jobs", "purge", "--older-than", "7")
    assert ran.code == 2
    assert "argument --older-than: '7' is not a duration like 7d, 12h, 30m or 1d12h" in ran.stderr


async def test_check_passes_on_the_filled_store(deployment: Deployment, api: FakeBotApi) -> None:
    await fill(deployment, time.time())

    ran = await deployment.run("check", bot_token=api.token, telegram_api_url=api.base_url)

    assert ran.code == 0, ran.stdout + ran.stderr
    store = next(line for line in ran.lines if line.startswith("store"))
    assert store.split()[1] == "ok"
    assert store.endswith(": 3 queued, 3 failed")


async def test_check_with_a_token_the_bot_api_refuses_is_one_line_and_exit_1(
    deployment: Deployment, api: FakeBotApi
) -> None:
    ran = await deployment.run("check", bot_token="123456:not-this-bot", telegram_api_url=api.base_url)

    assert ran.code == 1
    [telegram] = [line for line in ran.lines if line.startswith("telegram")]
    assert telegram.split(None, 2)[1:] == ["failed", "the Bot API answered getMe with 401 Unauthorized"]
    assert [line.split()[1] for line in ran.lines if not line.startswith("telegram")] == ["ok"] * 4
    assert "not-this-bot" not in ran.stdout + ran.stderr


async def test_an_unreachable_postgres_is_one_line_for_jobs_and_check(tmp_path: Path) -> None:
    dsn = f"postgresql://vidrelay:s3cret-pass@127.0.0.1:{closed_port()}/vidrelay"
    env = cli_env(data_dir=str(tmp_path), store="postgres", database_url=dsn)

    for args in (("jobs", "stats"), ("jobs", "list"), ("jobs", "purge", "--older-than", "7d")):
        ran = await vidrelay(*args, env=env)
        assert (ran.code, ran.stdout) == (1, ""), args
        [line] = ran.stderr.splitlines()
        assert line.startswith(
            "vidrelay: cannot connect to PostgreSQL at postgresql://vidrelay:***@127.0.0.1:"
        )
        assert "s3cret-pass" not in line

    checked = await vidrelay("check", env=env)
    assert checked.code == 1
    [store] = [line for line in checked.lines if line.startswith("store")]
    assert store.split()[1] == "failed"
    assert "cannot connect to PostgreSQL" in store
    assert "Traceback" not in checked.stdout + checked.stderr


async def test_a_file_that_is_not_a_store_is_one_line_for_jobs(tmp_path: Path) -> None:
    (tmp_path / "vidrelay.db").write_bytes(b"PK\x03\x04 a zip, not a database" * 10)

    ran = await vidrelay("jobs", "stats", env=cli_env(data_dir=str(tmp_path)))

    assert (ran.code, ran.stdout) == (1, "")
    assert ran.stderr.splitlines() == [f"vidrelay: {tmp_path / 'vidrelay.db'} is not an SQLite database"]
    assert (tmp_path / "vidrelay.db").read_bytes().startswith(b"PK\x03\x04")


async def test_a_data_folder_without_a_store_is_said_and_left_alone(tmp_path: Path) -> None:
    ran = await vidrelay("jobs", "list", env=cli_env(data_dir=str(tmp_path / "typo")))

    assert ran.code == 2
    assert ran.stderr.splitlines() == [
        f"vidrelay: no SQLite store at {tmp_path / 'typo' / 'vidrelay.db'}:"
        " is VIDRELAY_DATA_DIR the bot's data folder?"
    ]
    assert not (tmp_path / "typo").exists()


async def test_restore_of_a_file_that_is_no_backup_changes_nothing(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a backup" * 50)

    ran = await vidrelay("restore", str(junk), env=cli_env(data_dir=str(tmp_path / "data")))

    assert ran.code == 1
    assert ran.stderr.splitlines() == [
        f"vidrelay: restore of {junk} failed: {junk} is not a readable SQLite store: file is not a database"
    ]
    assert not list((tmp_path / "data").glob("vidrelay.db*"))


async def test_backup_and_restore_on_postgres_point_to_its_own_tools(tmp_path: Path) -> None:
    env = cli_env(data_dir=str(tmp_path), store="postgres", database_url="postgresql://v:pw@127.0.0.1/v")
    for command, tool in (("backup", "pg_dump"), ("restore", "pg_restore")):
        ran = await vidrelay(command, str(tmp_path / "x.db"), env=env)
        assert ran.code == 2
        [line] = ran.stderr.splitlines()
        assert line.endswith(
            f"VIDRELAY_STORE is postgres (for PostgreSQL use {tool}: see the README's Backups)"
        )
