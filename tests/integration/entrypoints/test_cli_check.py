"""`vidrelay check` on a real SQLite store, the real yt-dlp and ffmpeg, and the fake Bot API."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from testkit.telegram import FakeBotApi
from tests.support.cli import cli_env, vidrelay

pytestmark = pytest.mark.slow


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    """A bot set up as groups need it: privacy mode off."""
    async with FakeBotApi(reads_all_group_messages=True) as fake:
        yield fake


def check_env(api: FakeBotApi, data_dir: Path, **overrides: str) -> dict[str, str]:
    settings = {"bot_token": api.token, "telegram_api_url": api.base_url, "data_dir": str(data_dir)}
    return cli_env(**(settings | overrides))


def by_name(lines: list[str]) -> dict[str, str]:
    return {line.split()[0]: line for line in lines}


async def test_every_check_passes_on_a_good_deployment(api: FakeBotApi, tmp_path: Path) -> None:
    ran = await vidrelay("check", env=check_env(api, tmp_path / "data"))
    assert ran.code == 0, ran.stdout + ran.stderr
    lines = by_name(ran.lines)
    assert list(lines) == ["settings", "store", "yt-dlp", "ffmpeg", "telegram"]
    assert all(line.split()[1] == "ok" for line in lines.values())
    assert f"{tmp_path / 'data' / 'vidrelay.db'}: 0 queued, 0 failed" in lines["store"]
    assert "ffprobe found" in lines["ffmpeg"]
    assert f"@{api.bot.username} via {api.base_url}" in lines["telegram"]
    assert (tmp_path / "data" / "vidrelay.db").exists()
    assert ran.stderr == ""


async def test_a_token_the_bot_api_rejects_is_one_line_naming_its_answer(
    api: FakeBotApi, tmp_path: Path
) -> None:
    ran = await vidrelay("check", env=check_env(api, tmp_path / "data", bot_token="42:wrong"))
    assert ran.code == 1
    lines = by_name(ran.lines)
    assert lines["telegram"].split(None, 2)[1:] == [
        "failed",
        "the Bot API answered getMe with 401 Unauthorized",
    ]
    assert all(lines[name].split()[1] == "ok" for name in ("settings", "store", "yt-dlp", "ffmpeg"))
    assert "42:wrong" not in ran.stdout


async def test_a_store_that_cannot_open_fails_its_line_and_the_rest_still_run(
    api: FakeBotApi, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "vidrelay.db").write_bytes(b"this is not a database" * 100)
    ran = await vidrelay("check", env=check_env(api, data))
    assert ran.code == 1
    lines = by_name(ran.lines)
    assert lines["store"].split()[1] == "failed"
    assert "Traceback" not in ran.stdout + ran.stderr
    assert lines["telegram"].split()[1] == "ok"


async def test_an_invalid_setting_is_the_failed_settings_line(tmp_path: Path) -> None:
    ran = await vidrelay("check", env=cli_env(data_dir=str(tmp_path), job_concurrency="0"))
    assert ran.code == 1
    assert ran.lines == [
        "settings  failed invalid VIDRELAY_JOB_CONCURRENCY: Input should be greater than or equal to 1"
    ]


async def test_missing_tools_and_no_token_fail_their_lines(tmp_path: Path) -> None:
    env = cli_env(data_dir=str(tmp_path / "data"))
    env["PATH"] = str(tmp_path)  # no ffmpeg here; yt-dlp runs with the bot's own Python
    ran = await vidrelay("check", env=env)
    assert ran.code == 1
    lines = by_name(ran.lines)
    assert lines["ffmpeg"].endswith(
        "failed ffmpeg and ffprobe are not on PATH: install the `ffmpeg` package "
        "(Debian/Ubuntu: apt install ffmpeg)"
    )
    assert lines["telegram"].endswith("failed VIDRELAY_BOT_TOKEN is not set")
    assert lines["yt-dlp"].split()[1] == "ok"


async def test_privacy_mode_and_a_webhook_left_behind_are_warnings_that_do_not_fail_the_check(
    tmp_path: Path,
) -> None:
    async with FakeBotApi() as api:  # a new bot: privacy mode on, as @BotFather makes them
        api.set_webhook("https://old.example.com/bot123:secret/hook", delivery_error="Connection refused")
        ran = await vidrelay("check", env=check_env(api, tmp_path / "data"))
    assert ran.code == 0, ran.stdout + ran.stderr
    telegram = [line for line in ran.lines if line.startswith(("telegram", "webhook"))]
    assert [line.split()[:2] for line in telegram] == [
        ["telegram", "ok"],
        ["telegram", "warning"],
        ["webhook", "warning"],
        ["webhook", "warning"],
    ]
    assert "privacy mode is on" in telegram[1]
    assert "/setprivacy" in telegram[1]
    assert "`vidrelay run` deletes it at start" in telegram[2]
    assert telegram[3].endswith("Telegram's last delivery failed: Connection refused")
    assert "secret" not in ran.stdout  # a webhook's path may hold one


async def test_the_webhook_of_this_deployment_is_reported_ok(api: FakeBotApi, tmp_path: Path) -> None:
    url = "https://bot.example.com/webhook"
    api.set_webhook(url)
    ran = await vidrelay("check", env=check_env(api, tmp_path / "data", webhook_url=url))
    assert ran.code == 0
    assert by_name(ran.lines)["webhook"].split(None, 2)[1:] == [
        "ok",
        "set to VIDRELAY_WEBHOOK_URL, 0 update(s) waiting",
    ]


def without_deno(tmp_path: Path) -> Path:
    """A Python whose scripts folder has no `deno`, importing this venv's packages: where yt-dlp
    looks for its runtime (beside the interpreter, then PATH) there is none."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    [site] = (bare / "lib").glob("python3*/site-packages")
    ours = [p for p in sys.path if p.endswith(("site-packages", "/src"))]
    (site / "vidrelay-tests.pth").write_text("\n".join(ours) + "\n")
    return bare / "bin" / "python"


def test_yt_dlp_without_a_javascript_runtime_fails_its_line_with_what_to_install(tmp_path: Path) -> None:
    python = without_deno(tmp_path)
    env = cli_env(data_dir=str(tmp_path / "data"))
    env["PATH"] = str(Path(shutil.which("ffmpeg") or "/usr/bin/ffmpeg").parent)
    ran = subprocess.run(
        [str(python), "-m", "entrypoints.cli", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    line = by_name(ran.stdout.splitlines())["yt-dlp"]
    assert line.split()[1] == "failed"
    assert "no JavaScript runtime it can use" in line
    assert "vidrelay[extractors]" in line
    assert line.endswith("(yt-dlp found: none)")


async def test_the_setup_install_has_a_javascript_runtime_yt_dlp_uses(
    api: FakeBotApi, tmp_path: Path
) -> None:
    ran = await vidrelay("check", env=check_env(api, tmp_path / "data"))
    line = by_name(ran.lines)["yt-dlp"]
    assert line.split()[1] == "ok", line
    assert ", JavaScript runtime deno-" in line
