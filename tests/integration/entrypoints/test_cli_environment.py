"""Where `vidrelay` reads its settings, as an operator meets it: the environment, a `.env` in the
working directory (Compose's file), and a misspelt VIDRELAY_* name pointed out, not ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli_env, vidrelay

pytestmark = pytest.mark.slow


def reading_env_files(**settings: str) -> dict[str, str]:
    env = cli_env(**settings)
    del env["VIDRELAY_ENV_FILE"]  # as an operator's shell has it: `.env` is read
    return env


def shown(lines: list[str]) -> dict[str, str]:
    return dict(line.split("=", 1) for line in lines)


async def test_a_dotenv_in_the_working_directory_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# as .env.example has it\nCOMPOSE_PROFILES=sqlite\nVIDRELAY_JOB_CONCURRENCY=5\n"
        "VIDRELAY_LOG_FORMAT=json\nVIDRELAY_MAX_QUEUED_PER_USER=4\n"
    )
    ran = await vidrelay("config", env=reading_env_files(log_format="text"), cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    settings = shown(ran.lines)
    assert settings["VIDRELAY_JOB_CONCURRENCY"] == "5"
    assert settings["VIDRELAY_MAX_QUEUED_PER_USER"] == "4"
    assert settings["VIDRELAY_LOG_FORMAT"] == "text"  # the environment's value wins
    assert ran.stderr == ""


async def test_a_bad_value_in_the_dotenv_is_refused_like_one_in_the_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("VIDRELAY_JOB_CONCURRENCY=many\n")
    ran = await vidrelay("config", env=reading_env_files(), cwd=tmp_path)
    assert ran.code == 2
    assert ran.stderr.splitlines() == [
        "vidrelay: invalid VIDRELAY_JOB_CONCURRENCY: Input should be a valid integer, unable to parse "
        "string as an integer"
    ]


async def test_misspelt_names_are_warned_with_the_closest_setting_from_either_source(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("VIDRELAY_ALLOWED_CHATS=-100123\n")
    env = reading_env_files(ytdlp_timeout="60", data_dir=str(tmp_path / "data"))
    config = await vidrelay("config", env=env, cwd=tmp_path)
    check = await vidrelay("check", env=env, cwd=tmp_path)
    assert config.code == 0
    assert config.stderr.splitlines() == [
        "vidrelay: warning: VIDRELAY_ALLOWED_CHATS is not a vidrelay setting and is ignored:"
        " did you mean VIDRELAY_ALLOWED_CHAT_IDS?",
        "vidrelay: warning: VIDRELAY_YTDLP_TIMEOUT is not a vidrelay setting and is ignored:"
        " did you mean VIDRELAY_YTDLP_TIMEOUT_SECONDS?",
    ]
    warned = [line for line in check.lines if line.startswith("settings  warning")]
    assert len(warned) == 2
    assert "VIDRELAY_YTDLP_TIMEOUT_SECONDS?" in warned[1]
