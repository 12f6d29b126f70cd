"""`vidrelay check` on a real SQLite store, the real yt-dlp and ffmpeg, and the fake Bot API."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.telegram import FakeBotApi
from tests.support.cli import cli_env, vidrelay

pytestmark = pytest.mark.slow


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
