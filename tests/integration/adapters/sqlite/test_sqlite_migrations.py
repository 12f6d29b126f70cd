"""Schema migrations on real files: from an empty file and from every earlier version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from adapters.sqlite.schema import MIGRATIONS, Migration, migrate, schema_version
from ports.chat_settings import ChatSettings
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, NewJob

NOW = 1_700_000_000.0

# One row per migration, written with the schema of that version. Every migration needs one, so a
# new migration cannot ship without proving the rows before it survive.
CANARIES: dict[int, list[str]] = {
    1: [
        "INSERT INTO jobs (name, payload, max_attempts, available_at, created_at)"
        """ VALUES ('canary', '{"n": 1}', 3, 0, 0)""",
        "INSERT INTO failed_jobs (job_id, name, payload, error, attempts, max_attempts, created_at,"
        " failed_at) VALUES (99, 'dead_canary', '{}', 'boom', 3, 3, 0, 0)",
    ],
    2: [
        "INSERT INTO pending (id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,"
        " job_available_at, blob_key, created_at) VALUES ('canary', 1, 2, 3, 'send_confirmed', '{}', 3, 0,"
        " 'canary-blob', 0)",
    ],
    3: [
        "INSERT INTO blobs (key, file_name, size, created_at, last_used)"
        " VALUES ('canary-blob', 'c.mp4', 10, 0, 0)",
    ],
    4: [
        "INSERT INTO video_info (url, entries, canonical, created_at)"
        """ VALUES ('https://canary.example', '[]', '[]', 1e12)""",
        "INSERT INTO handled_urls (chat_id, message_id, url, created_at)"
        " VALUES (1, 2, 'https://canary.example', 0)",
    ],
    5: ["INSERT INTO install_secrets (name, value, created_at) VALUES ('canary', x'c0ffee', 0)"],
    6: [
        "INSERT INTO chat_settings (chat_id, max_height, audio_only, ask_long_videos,"
        " ask_longer_than_seconds, updated_at) VALUES (-42, 480, 1, 0, 600, 0)"
    ],
    7: [
        "UPDATE jobs SET token = 7, suspect = 1 WHERE name = 'canary'",
    ],
    8: [
        "INSERT INTO inbox (update_id, lane, body, received_at)"
        " VALUES (12, 'chat:1', '{\"update_id\": 12}', 0)",
    ],
    9: ["UPDATE jobs SET requester = 5, turn = 4 WHERE name = 'canary'"],
    10: ["INSERT INTO user_links (user_id, at) VALUES (77, 1e12)"],
    11: ["INSERT INTO job_cancels (job_id) SELECT id FROM jobs WHERE name = 'canary'"],
    12: [
        "INSERT INTO ytdlp_tallies (extractor, version, successes) VALUES ('generic', '2099.1.1', 3)",
        "INSERT INTO ytdlp_failed_links (extractor, version, url, failed_at)"
        " VALUES ('generic', '2099.2.1', 'https://canary.example', 0)",
        "INSERT INTO ytdlp_rollbacks (version, extractor, to_version, at)"
        " VALUES ('2099.2.1', 'generic', '2099.1.1', 0)",
    ],
    13: [
        "INSERT INTO chat_settings (chat_id, max_height, audio_only, ask_long_videos,"
        " ask_longer_than_seconds, language, updated_at) VALUES (-43, NULL, 0, 1, NULL, 'es', 0)"
    ],
    14: ["UPDATE chat_settings SET as_file = 1 WHERE chat_id = -42"],
}


def build_at_version(path: Path, version: int) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(connection, MIGRATIONS[:version]) == version
        for applied in range(1, version + 1):
            for statement in CANARIES[applied]:
                connection.execute(statement)
    finally:
        connection.close()


def user_version(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return schema_version(connection)
    finally:
        connection.close()


def test_every_migration_has_a_canary() -> None:
    assert sorted(CANARIES) == list(range(1, len(MIGRATIONS) + 1))


@pytest.mark.parametrize("version", range(len(MIGRATIONS) + 1))
async def test_opening_migrates_to_the_latest_version_and_keeps_the_data(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "vidrelay.db"
    build_at_version(path, version)

    store = await SqliteStore.open(path)
    try:
        assert user_version(path) == len(MIGRATIONS)
        jobs = await store.list_jobs()
        failed = await store.list_failed()
        parked = await store.pending("canary")
        blob = await store.blob("canary-blob")
        info = await store.cached_info("https://canary.example", NOW)
        guard = HandledUrlGuard(1, 2, "https://canary.example")
        refused = await store.enqueue(NewJob("download_video", {}, 3), NOW, guard) is None
        secret = await store.install_secret("canary", b"new")
        chosen = await store.chat_settings(-42)
        links = await store.links_since(77, 0)
        waiting = await store.waiting_updates()
        tally = await store.tally("generic", "2099.1.1")
        rollbacks = await store.rollbacks()
    finally:
        await store.close()

    assert [(j.name, j.payload) for j in jobs] == ([("canary", {"n": 1})] if version >= 1 else [])
    assert [(j.token, j.suspect) for j in jobs] == ([(7, True)] if version >= 7 else [(0, False)] * len(jobs))
    assert [(j.requester, j.turn) for j in jobs] == ([(5, 4)] if version >= 9 else [(None, 0)] * len(jobs))
    assert [f.name for f in failed] == (["dead_canary"] if version >= 1 else [])
    assert (parked is not None) == (version >= 2)
    assert (blob is not None and blob.file_name == "c.mp4") == (version >= 3)
    assert (info == []) == (version >= 4)
    assert refused == (version >= 4)
    assert secret == (b"\xc0\xff\xee" if version >= 5 else b"new")
    assert chosen == (ChatSettings(480, True, False, 600, as_file=version >= 14) if version >= 6 else None)
    assert links == ([1e12] if version >= 10 else [])
    assert [k.update.update_id for k in waiting] == ([12] if version >= 8 else [])
    assert tally.successes == (3 if version >= 12 else 0)
    assert [r.version for r in rollbacks] == (["2099.2.1"] if version >= 12 else [])


async def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    first = await SqliteStore.open(path)
    await first.enqueue(NewJob("download_video", {}, 3), NOW)
    await first.close()

    second = await SqliteStore.open(path)
    try:
        assert len(await second.list_jobs()) == 1
    finally:
        await second.close()


async def test_a_failing_migration_rolls_back_with_its_version_bump(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    broken = (*MIGRATIONS, Migration("broken", ("CREATE TABLE extra (x TEXT)", "THIS IS NOT SQL")))

    with pytest.raises(StoreError, match="syntax error"):
        await SqliteStore.open(path, migrations=broken)

    connection = sqlite3.connect(path)
    try:
        assert schema_version(connection) == len(MIGRATIONS)
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "extra" not in tables
    finally:
        connection.close()

    fixed = (*MIGRATIONS, Migration("extra", ("CREATE TABLE extra (x TEXT)",)))
    store = await SqliteStore.open(path, migrations=fixed)
    await store.close()
    assert user_version(path) == len(MIGRATIONS) + 1
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM extra").fetchall() == [(0,)]


async def test_a_file_from_a_newer_vidrelay_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    connection.close()

    with pytest.raises(StoreError, match="schema version"):
        await SqliteStore.open(path)
