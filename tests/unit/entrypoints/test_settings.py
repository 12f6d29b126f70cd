from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from entrypoints.settings import SettingsError, load_settings, misspelt_settings
from entrypoints.wiring.stores import postgres_limits

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


def test_every_postgres_wait_is_bounded_by_default_and_each_bound_is_a_setting() -> None:
    defaults = postgres_limits(load_settings({}))
    assert (defaults.statement_seconds, defaults.idle_in_transaction_seconds) == (15, 30)
    assert (defaults.keepalive_seconds, defaults.connect_seconds) == (10, 10)
    chosen = postgres_limits(
        load_settings(
            {
                "VIDRELAY_DATABASE_STATEMENT_TIMEOUT_SECONDS": "4",
                "VIDRELAY_DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS": "5",
                "VIDRELAY_DATABASE_KEEPALIVE_SECONDS": "6",
                "VIDRELAY_DATABASE_CONNECT_TIMEOUT_SECONDS": "7",
            }
        )
    )
    assert (chosen.statement_seconds, chosen.idle_in_transaction_seconds) == (4, 5)
    assert (chosen.keepalive_seconds, chosen.connect_seconds, chosen.call_seconds) == (6, 7, 6)


def test_lists_are_comma_separated_and_local_mode_raises_the_limit() -> None:
    s = load_settings(
        {
            "VIDRELAY_ALLOWED_CHAT_IDS": "1, -100200,3",
            "VIDRELAY_TELEGRAM_LOCAL_MODE": "true",
            "VIDRELAY_TELEGRAM_API_URL": "http://bot-api:8081",
        }
    )
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
        SettingsError,
        match=r"^VIDRELAY_DATABASE_URL \(or VIDRELAY_DATABASE_HOST\) is required with VIDRELAY_STORE=post",
    ):
        load_settings({"VIDRELAY_STORE": "postgres"})

    s = load_settings({"VIDRELAY_STORE": "postgres", "VIDRELAY_DATABASE_URL": "postgresql://u:pw@db/v"})
    assert (s.database_dsn, s.database_pool_size, s.single_process_store) == (
        "postgresql://u:pw@db/v",
        4,
        False,
    )
    assert "pw" not in s.masked()["VIDRELAY_DATABASE_URL"]


@pytest.mark.parametrize("password", ["p/a#s@s:w%rd?", "ä ö+&=", "%2F", "plain"])
def test_the_database_parts_make_a_url_that_keeps_any_password(password: str) -> None:
    s = load_settings(
        {
            "VIDRELAY_STORE": "postgres",
            "VIDRELAY_DATABASE_HOST": "postgres",
            "VIDRELAY_DATABASE_PASSWORD": password,
        }
    )
    parts = urlsplit(s.database_dsn)
    assert (parts.scheme, parts.hostname, parts.port, parts.path) == (
        "postgresql",
        "postgres",
        5432,
        "/vidrelay",
    )
    assert (unquote(parts.username or ""), unquote(parts.password or "")) == ("vidrelay", password)
    assert password not in s.masked()["VIDRELAY_DATABASE_PASSWORD"]


def test_a_url_and_the_parts_together_are_refused() -> None:
    with pytest.raises(SettingsError, match="not both"):
        load_settings({"VIDRELAY_DATABASE_URL": "postgresql://u@db/v", "VIDRELAY_DATABASE_HOST": "db"})


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


def test_the_download_cap_defaults_to_room_for_the_parts_of_a_video_or_a_compression() -> None:
    assert load_settings({}).download_cap_bytes == 8 * 50 * 1024 * 1024  # VIDRELAY_MAX_PARTS parts
    assert (
        load_settings(
            {"VIDRELAY_TELEGRAM_LOCAL_MODE": "true", "VIDRELAY_TELEGRAM_API_URL": "http://bot-api:8081"}
        ).download_cap_bytes
        == 8 * 2000 * 1024 * 1024
    )
    assert load_settings({"VIDRELAY_MAX_PARTS": "1"}).download_cap_bytes == 4 * 50 * 1024 * 1024
    assert load_settings({"VIDRELAY_MAX_DOWNLOAD_BYTES": "1000"}).download_cap_bytes == 1000


def test_a_readable_cookies_file_is_taken_and_never_shown(tmp_path: Path) -> None:
    jar = tmp_path / "private-jar.txt"
    jar.write_text("# Netscape HTTP Cookie File\n")
    settings = load_settings({"VIDRELAY_YTDLP_COOKIES_FILE": str(jar)})
    assert settings.ytdlp_cookies_file == jar
    assert settings.masked()["VIDRELAY_YTDLP_COOKIES_FILE"] == "(masked)"
    assert load_settings({}).masked()["VIDRELAY_YTDLP_COOKIES_FILE"] == ""


@pytest.mark.parametrize("kind", ["missing", "folder", "unreadable"])
def test_a_cookies_file_that_cannot_be_read_refuses_the_start_in_one_line(kind: str, tmp_path: Path) -> None:
    jar = tmp_path / "private-jar.txt"
    if kind == "folder":
        jar.mkdir()
    elif kind == "unreadable":
        jar.write_text("x")
        jar.chmod(0)
        if os.access(jar, os.R_OK):
            pytest.skip("running as a user who reads every file (root)")
    result = run_cli("config", VIDRELAY_YTDLP_COOKIES_FILE=str(jar))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "VIDRELAY_YTDLP_COOKIES_FILE" in result.stderr
    assert "private-jar" not in result.stderr + result.stdout


def test_a_misspelt_name_is_named_with_the_closest_setting_and_a_far_one_without() -> None:
    assert misspelt_settings({"VIDRELAY_JOB_CONCURENCY": "2", "VIDRELAY_XYZZY": "1", "HOME": "/root"}) == [
        "VIDRELAY_JOB_CONCURENCY is not a vidrelay setting and is ignored:"
        " did you mean VIDRELAY_JOB_CONCURRENCY?",
        "VIDRELAY_XYZZY is not a vidrelay setting and is ignored",
    ]
    assert misspelt_settings({"VIDRELAY_JOB_CONCURRENCY": "2"}) == []


def test_an_env_file_a_mapping_names_is_read_under_its_values(tmp_path: Path) -> None:
    env_file = tmp_path / "vidrelay.env"
    env_file.write_text("VIDRELAY_JOB_CONCURRENCY=7\nVIDRELAY_MAX_ATTEMPTS=5\n")
    settings = load_settings({"VIDRELAY_ENV_FILE": str(env_file), "VIDRELAY_MAX_ATTEMPTS": "2"})
    assert (settings.job_concurrency, settings.max_attempts) == (7, 2)
    assert load_settings({}).job_concurrency == 3  # a mapping without VIDRELAY_ENV_FILE reads no file


def test_local_mode_against_the_cloud_bot_api_is_refused() -> None:
    with pytest.raises(
        SettingsError, match=r"^VIDRELAY_TELEGRAM_LOCAL_MODE=true needs VIDRELAY_TELEGRAM_API_URL"
    ):
        load_settings({"VIDRELAY_TELEGRAM_LOCAL_MODE": "true"})


def test_the_proxy_is_an_http_url_refused_without_repeating_it_and_masked() -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({"VIDRELAY_PROXY": "socks5://user:hunter2@proxy:1080"})
    assert str(refused.value) == (
        "invalid VIDRELAY_PROXY: Value error, must be http://[user:password@]host:port (an HTTP proxy)"
    )
    s = load_settings({"VIDRELAY_PROXY": "http://user:hunter2@proxy.example:3128"})
    assert (s.proxy_url, s.egress_guard) == ("http://user:hunter2@proxy.example:3128", "on")
    assert s.masked()["VIDRELAY_PROXY"] == "(masked)"
    unguarded = load_settings({"VIDRELAY_PROXY": "http://proxy:3128", "VIDRELAY_ALLOW_PRIVATE_URLS": "true"})
    assert unguarded.egress_guard == "direct"
