"""The production image, built from the Dockerfile and run as an operator runs it: the offline demo,
`check` against our fake Bot API, the bot delivering from a local video site, an ingest and a
worker container on PostgreSQL, the HEALTHCHECK, a graceful SIGTERM, an unwritable bind mount.

The engine is Docker where its daemon answers, else podman with runc (installed, and the base
image stood in for, by tests/support/container_engine.py); the test skips only when neither can
run, saying why for each. The image is built once per run of this module (the layer cache makes a
rebuild after a change in src/ take seconds); every container runs on the host's network, so the
fakes it talks to listen on 127.0.0.1 only. All of it sits in this one module so that xdist's
`--dist loadfile` keeps the build and its users on one worker.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from packaging.utils import canonicalize_name

from testkit.bot_process import bot_environment
from testkit.loopback import free_port
from testkit.telegram import Chat, FakeBotApi, VideoRecord
from testkit.video_site import Trickle, VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, sha256_of
from tests.support.cli import cli_env, vidrelay
from tests.support.container_engine import Engine, EngineUnavailable, find_engine
from tests.support.containers import IMAGE_UID, Container, data_folder_for_the_image, detached, run_once
from tests.support.deploy_files import ROOT, compose, duration_seconds, locked

pytestmark = pytest.mark.slow

# One tag per checkout: two worktrees testing at once must not test each other's image (the
# layers they share are cached once all the same).
TAG = f"localhost/vidrelay-test:{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
BUILD_TIMEOUT_SECONDS = 1800
STOP_GRACE_SECONDS = duration_seconds(compose()["services"]["bot"]["stop_grace_period"])
SHUTDOWN_GRACE = compose()["x-vidrelay-environment"]["VIDRELAY_SHUTDOWN_GRACE_SECONDS"]
IN_FLIGHT_SECONDS = 15.0
"""A download still running when SIGTERM comes: long enough to watch the health check meanwhile."""
UNHEALTHY = 1
UNFINISHED = ("queued", "scheduled", "backing_off", "running", "failed")
CHECKS = ("settings", "store", "yt-dlp", "ffmpeg", "telegram")


@pytest.fixture(scope="module")
def engine() -> Engine:
    try:
        return find_engine()
    except EngineUnavailable as error:
        pytest.skip(f"no container engine can run here ({error}); the Dockerfile is checked by parsing")


@pytest.fixture(scope="module")
def image(engine: Engine) -> str:
    engine.build(ROOT, TAG, timeout=BUILD_TIMEOUT_SECONDS)
    return TAG


@pytest.fixture
async def fakes() -> AsyncIterator[tuple[FakeBotApi, VideoServer]]:
    # A bot set up as groups need it (privacy mode off), so its check has nothing to warn about.
    async with FakeBotApi(reads_all_group_messages=True) as api, VideoServer(CLIPS_DIR) as site:
        yield api, site


def container_env(api: FakeBotApi, site: VideoServer, **overrides: str) -> dict[str, str]:
    """The e2e tests' settings for a bot (the SSRF guard letting only `site` through), minus the
    data folder, which is the image's /data, and with compose.yaml's shutdown grace."""
    env = bot_environment(api, Path("/data"), sites=[site], VIDRELAY_SHUTDOWN_GRACE_SECONDS=SHUTDOWN_GRACE)
    chosen = {k: v for k, v in env.items() if k.startswith("VIDRELAY_") and k != "VIDRELAY_DATA_DIR"}
    return chosen | {"VIDRELAY_METRICS_PORT": str(free_port())} | overrides


async def delivered(api: FakeBotApi, chat_id: int, message_id: int) -> VideoRecord:
    return await api.wait_for(
        lambda: next((v for v in api.videos(chat_id) if v.reply_to == message_id), None), timeout=WAIT_SECONDS
    )


async def healthy(container: Container) -> None:
    """The HEALTHCHECK passes: the bot answered /healthz with 200 (it may need a moment to start)."""
    for _ in range(int(WAIT_SECONDS)):
        if (await container.health_check()).returncode == 0:
            return
        assert await container.running(), await container.logs()
        await asyncio.sleep(1)
    raise AssertionError(f"never healthy:\n{await container.logs()}")


async def unhealthy_while_running(container: Container, env: dict[str, str]) -> str:
    """Wait for the HEALTHCHECK to fail while the container still runs; then what /healthz says."""
    # 1 is the check's own verdict; another code is the engine failing to run it (busy stopping).
    while (await container.health_check()).returncode != UNHEALTHY:
        assert await container.running(), "stopped before the health check ever failed"
        await asyncio.sleep(0.2)
    url = f"http://127.0.0.1:{env['VIDRELAY_METRICS_PORT']}/healthz"
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        return f"{answer.status} {await answer.text()}"


async def changes_of_a_bare_container(engine: Engine, image: str, data: Path) -> set[str]:
    async with detached(engine, image, "600", env={}, data=data, extra=["--entrypoint", "sleep"]) as bare:
        return set(await bare.changes())


def test_the_image_declares_its_user_volume_signal_and_healthcheck(engine: Engine, image: str) -> None:
    (inspected,) = json.loads(engine("image", "inspect", image).stdout)
    config = inspected["Config"]
    assert config["User"] == f"{IMAGE_UID}:{IMAGE_UID}"
    assert "/data" in config["Volumes"]
    assert config["StopSignal"] == "SIGTERM"
    healthcheck = config.get("Healthcheck") or inspected["Healthcheck"]  # where podman keeps it
    assert healthcheck["Test"] == ["CMD", "python", "/usr/local/lib/vidrelay/healthcheck.py"]
    assert config["Entrypoint"] == ["vidrelay"]
    assert config["Cmd"] == ["run"]


async def test_the_image_holds_ffmpeg_deno_and_the_bot_configured_for_the_volume(
    engine: Engine, image: str
) -> None:
    tools = "ffmpeg -version; ffprobe -version; deno --version"
    script = f"set -e; id -u; {tools}; vidrelay --version; vidrelay config"
    ran = await run_once(engine, image, "-c", script, entrypoint="/bin/sh")
    assert ran.returncode == 0, ran.stderr
    uid, *rest = ran.stdout.splitlines()
    assert uid == str(IMAGE_UID)
    assert any(line.startswith("ffmpeg version") for line in rest)
    assert any(line.startswith("deno ") for line in rest)
    assert any(
        line.startswith(f"vidrelay 0.1.0, yt-dlp {locked()['yt-dlp'][0]}, Python 3.11.") for line in rest
    )
    assert "VIDRELAY_DATA_DIR=/data" in rest


async def test_the_image_holds_the_locked_runtime_and_of_the_testkit_only_what_the_demo_needs(
    engine: Engine, image: str
) -> None:
    ran = await run_once(engine, image, "-m", "pip", "list", "--format=json", entrypoint="python")
    installed = {canonicalize_name(package["name"]) for package in json.loads(ran.stdout)}
    assert installed == set(locked()) | {"vidrelay", "pip"}  # no dev tool, no build tool
    probe = "import testkit.telegram, testkit.video_site, testkit.bot_process; import testkit.postgres"
    ran = await run_once(engine, image, "-c", probe, entrypoint="python")
    assert ran.stderr.strip().splitlines()[-1] == "ModuleNotFoundError: No module named 'testkit.postgres'"


async def test_the_offline_demo_passes_inside_the_image(engine: Engine, image: str) -> None:
    ran = await run_once(engine, image, "demo")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.rstrip().endswith("6 of 6 steps did what they should."), ran.stdout


async def test_check_inside_the_image_reports_each_check_against_the_fake_bot_api(
    engine: Engine, image: str, fakes: tuple[FakeBotApi, VideoServer], tmp_path: Path
) -> None:
    api, site = fakes
    data = data_folder_for_the_image(tmp_path / "data")
    ran = await run_once(engine, image, "check", env=container_env(api, site), data=data)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    verdicts = {line.split()[0]: line.split()[1] for line in ran.stdout.splitlines()}
    assert {name: verdicts.get(name) for name in CHECKS} == dict.fromkeys(CHECKS, "ok"), ran.stdout
    assert api.calls_of("getMe")  # the telegram check asked our fake, through the host's loopback


async def test_the_healthcheck_fails_while_no_bot_answers(engine: Engine, image: str) -> None:
    ran = await run_once(engine, image, "/usr/local/lib/vidrelay/healthcheck.py", entrypoint="python")
    assert ran.returncode == 1
    assert ran.stderr.startswith("unhealthy: http://127.0.0.1:9464/healthz")


async def test_a_data_mount_the_image_user_cannot_write_is_one_line_and_exit_2(
    engine: Engine, image: str, fakes: tuple[FakeBotApi, VideoServer], tmp_path: Path
) -> None:
    api, site = fakes
    denied = f"is not writable: permission denied for uid {IMAGE_UID}"

    async def refusal(data: Path) -> str:
        ran = await run_once(engine, image, "run", env=container_env(api, site), data=data)
        assert ran.returncode == 2, ran.stderr
        (line,) = ran.stderr.splitlines()
        return line

    owned_by_host = tmp_path / "host"
    owned_by_host.mkdir(mode=0o755)
    assert (await refusal(owned_by_host)).startswith(f"vidrelay: data folder /data {denied}")
    assert list(owned_by_host.iterdir()) == []
    # The folder handed to uid 10001, but the lock file left by a `vidrelay run` as another user
    # (root, on the host): the line names the file.
    handed_over = data_folder_for_the_image(tmp_path / "handed-over")
    (handed_over / "vidrelay.lock").touch(mode=0o600)
    assert (await refusal(handed_over)).startswith(
        f"vidrelay: /data/vidrelay.lock in the data folder {denied}"
    )
    assert not api.calls_of("getMe")  # both refused before they reached out to Telegram


async def test_the_bot_in_the_image_delivers_writes_only_under_data_and_stops_gracefully_on_sigterm(
    engine: Engine, image: str, fakes: tuple[FakeBotApi, VideoServer], tmp_path: Path
) -> None:
    api, site = fakes
    data = data_folder_for_the_image(tmp_path / "data")
    env = container_env(api, site)
    async with detached(engine, image, "run", env=env, data=data) as bot:
        await healthy(bot)
        user = new_user()
        message = api.send_text(Chat.private(user), user, site.url("/clips/short.mp4"))
        assert (await delivered(api, user.id, message)).sha256 == sha256_of(site.clip("short"))
        assert (await bot("exec", bot.name, "id", "-u")).stdout.strip() == str(IMAGE_UID)
        assert {path.stat().st_uid for path in data.rglob("*")} == {IMAGE_UID}
        # Nothing left outside /data; /tmp held only the private per-run files (the guard's proxy
        # config, cookie copies), removed after each run. The engine's own mount points in /etc
        # show in a container that ran nothing too.
        assert set(await bot.changes()) - await changes_of_a_bare_container(engine, image, data) <= {"C /tmp"}

        site.set_route("/slow.mp4", Trickle(site.clip("short").read_bytes(), seconds=IN_FLIGHT_SECONDS))
        slow = api.send_text(Chat.private(user), user, site.url("/slow.mp4"))
        await api.wait_for(lambda: site.hits("/slow.mp4") >= 1, timeout=WAIT_SECONDS)
        stopping = asyncio.ensure_future(bot.stop(STOP_GRACE_SECONDS))
        # SIGTERM: no more polling while the in-flight download finishes; not healthy meanwhile.
        assert "503 unhealthy: not receiving updates" in await unhealthy_while_running(bot, env)
        assert await stopping == 0, await bot.logs()  # 137: still running after the grace period
        assert (await delivered(api, user.id, slow)).sha256 == sha256_of(site.clip("short"))
        assert "Traceback" not in await bot.logs()


async def test_an_ingest_and_a_worker_container_on_postgresql_deliver_a_link_exactly_once(
    engine: Engine, image: str, fakes: tuple[FakeBotApi, VideoServer], tmp_path: Path, pg_dsn: str
) -> None:
    api, site = fakes
    shared = {"VIDRELAY_STORE": "postgres", "VIDRELAY_DATABASE_URL": pg_dsn}
    ingest_data = data_folder_for_the_image(tmp_path / "ingest")
    worker_data = data_folder_for_the_image(tmp_path / "worker")
    # Two worker tasks: once one has left at SIGTERM, fewer are alive than the role wants.
    worker_env = container_env(api, site, **shared, VIDRELAY_JOB_CONCURRENCY="2")
    async with (
        detached(
            engine, image, "run", "--role", "ingest", env=container_env(api, site, **shared), data=ingest_data
        ) as ingest,
        detached(engine, image, "run", "--role", "worker", env=worker_env, data=worker_data) as worker,
    ):
        await healthy(ingest)
        await healthy(worker)
        user = new_user()
        message = api.send_text(Chat.private(user), user, site.url("/clips/short.mp4"))
        assert (await delivered(api, user.id, message)).sha256 == sha256_of(site.clip("short"))

        site.set_route("/slow.mp4", Trickle(site.clip("short").read_bytes(), seconds=IN_FLIGHT_SECONDS))
        slow = api.send_text(Chat.private(user), user, site.url("/slow.mp4"))
        await api.wait_for(lambda: site.hits("/slow.mp4") >= 1, timeout=WAIT_SECONDS)
        stopping = asyncio.ensure_future(worker.stop(STOP_GRACE_SECONDS))
        # SIGTERM: the idle worker task is gone at once, the busy one finishes its download.
        assert await unhealthy_while_running(worker, worker_env) == "503 unhealthy: 1 of 2 workers alive\n"
        assert await stopping == 0, await worker.logs()
        assert await ingest.stop(STOP_GRACE_SECONDS) == 0, await ingest.logs()

    for message_id in (message, slow):
        assert [v.reply_to for v in api.videos(user.id)].count(message_id) == 1
    stats = await vidrelay(
        "jobs",
        "stats",
        "--json",
        env=cli_env(store="postgres", database_url=pg_dsn, data_dir=str(tmp_path / "cli")),
    )
    total = json.loads(stats.stdout)["total"]
    assert {state: total[state] for state in UNFINISHED} == dict.fromkeys(UNFINISHED, 0)
