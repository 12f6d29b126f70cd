from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from entrypoints.settings import SettingsError, load_settings

VIDRELAY = Path(sys.executable).with_name("vidrelay")


def test_defaults_follow_the_spec() -> None:
    s = load_settings({})
    assert (s.job_concurrency, s.ytdlp_concurrency, s.max_attempts) == (3, 3, 3)
    assert (s.store, s.telegram_api_url, s.ytdlp_timeout_seconds) == (
        "sqlite",
        "https://api.telegram.org",
        300,
    )
    assert (s.shutdown_grace_seconds, s.confirm_longer_than_seconds, s.max_queued_per_user) == (30, 1200, 10)
    assert s.allowed_chat_ids == ()
    assert s.upload_limit_bytes == 50 * 1024 * 1024


def test_lists_are_comma_separated_and_local_mode_raises_the_limit() -> None:
    s = load_settings({"VIDRELAY_ALLOWED_CHAT_IDS": "1, -100200,3", "VIDRELAY_TELEGRAM_LOCAL_MODE": "true"})
    assert s.allowed_chat_ids == (1, -100200, 3)
    assert s.upload_limit_bytes == 2000 * 1024 * 1024


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("VIDRELAY_JOB_CONCURRENCY", "zero"),
        ("VIDRELAY_JOB_CONCURRENCY", "0"),
        ("VIDRELAY_STORE", "mongodb"),
        ("VIDRELAY_STORE", "postgres"),  # refused until a Postgres adapter exists
        ("VIDRELAY_ALLOWED_CHAT_IDS", "1,two"),
        ("VIDRELAY_TELEGRAM_API_URL", "ftp://x"),
        ("VIDRELAY_LOG_FORMAT", "xml"),
    ],
)
def test_a_bad_value_names_its_variable(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        load_settings({variable: value})


def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("VIDRELAY_")}
    return subprocess.run(
        [str(VIDRELAY), *args], env={**clean, **env}, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("command", "variable", "value"),
    [("config", "VIDRELAY_MAX_ATTEMPTS", "-1"), ("run", "VIDRELAY_STORE", "postgres")],
)
def test_a_bad_value_exits_2_with_one_line_and_no_traceback(command: str, variable: str, value: str) -> None:
    result = run_cli(command, **{variable: value, "VIDRELAY_BOT_TOKEN": "123:abc"})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert variable in result.stderr
    assert "Traceback" not in result.stderr


def test_config_prints_every_setting_with_the_token_masked() -> None:
    token = "123456789:AAH-secret-token-value"
    result = run_cli("config", VIDRELAY_BOT_TOKEN=token)
    assert result.returncode == 0
    assert "secret-token-value" not in result.stdout
    assert "VIDRELAY_BOT_TOKEN=" in result.stdout
    assert "VIDRELAY_JOB_CONCURRENCY=3" in result.stdout


def test_help_lists_the_commands() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("run", "demo", "jobs", "config"):
        assert command in result.stdout


def test_the_postgres_store_needs_its_url() -> None:
    with pytest.raises(
        SettingsError, match=r"^VIDRELAY_DATABASE_URL is required with VIDRELAY_STORE=postgres$"
    ):
        load_settings({"VIDRELAY_STORE": "postgres"})

    s = load_settings({"VIDRELAY_STORE": "postgres", "VIDRELAY_DATABASE_URL": "postgresql://u:pw@db/v"})
    assert (s.database_dsn, s.database_pool_size, s.single_process_store) == (
        "postgresql://u:pw@db/v",
        4,
        False,
    )
    assert "pw" not in s.masked()["VIDRELAY_DATABASE_URL"]


def test_roles_split_only_a_postgres_deployment(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDRELAY_")}
    env |= {"VIDRELAY_BOT_TOKEN": "123456:" + "A" * 35, "VIDRELAY_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [str(VIDRELAY), "run", "--role", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "vidrelay: --role worker splits a deployment over VIDRELAY_STORE=postgres;"
        " the sqlite store serves one process: use --role all"
    ]
