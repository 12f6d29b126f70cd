"""compose.yaml and .env.example, read as Compose reads them."""

from __future__ import annotations

import os
import re
import shlex
import socket
import stat
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from entrypoints.cli import build_parser
from entrypoints.settings import Settings, load_settings
from tests.support.deploy_files import (
    COMPOSE,
    ENV_EXAMPLE,
    ROOT,
    SETTING_VARIABLES,
    VARIABLE,
    compose,
    dockerfile,
    duration_seconds,
    env_example,
    env_of,
    stages,
)

SERVICES: dict[str, dict[str, Any]] = compose()["services"]
VIDRELAY = {
    name: s for name, s in SERVICES.items() if s.get("build") == "." or "vidrelay" in s.get("image", "")
}
BOT_API = {name: s for name, s in SERVICES.items() if s["image"].startswith("aiogram/telegram-bot-api")}
IMAGE_ENV = env_of(stages(dockerfile())[-1])
LOCAL = "local-bot-api"
_VARIABLE = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")


def interpolated(value: object, variables: dict[str, str]) -> str:
    """A value as Compose resolves it: `${VAR}`, `${VAR:-default}`, `$$` for a dollar."""
    text = str(value).replace("$$", "\0")
    text = _VARIABLE.sub(lambda m: variables.get(m.group(1)) or m.group(2) or "", text)
    return text.replace("\0", "$")


def environment(service: dict[str, Any], dotenv: dict[str, str] | None = None) -> dict[str, str]:
    """What the container sees: the image's ENV, then .env (as .env.example has it, or `dotenv`),
    then `environment`, resolved against that .env."""
    variables = env_example() if dotenv is None else dotenv
    from_file = variables if ".env" in service.get("env_file", []) else {}
    given = {k: interpolated(v, variables) for k, v in service.get("environment", {}).items()}
    return {**IMAGE_ENV, **from_file, **given}


def local_dotenv() -> dict[str, str]:
    """.env.example with its local Bot API block uncommented, as its comment tells the operator."""
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    block = text[text.index("# --- A local Bot API server") :].split("\n\n", 1)[0]
    lines = [line.removeprefix("# ") for line in block.splitlines() if re.match(r"# [A-Z_]+=", line)]
    return {**env_example(), **dict(line.split("=", 1) for line in lines)}


def data_dir(service: dict[str, Any]) -> str:
    """VIDRELAY_DATA_DIR, also when the entrypoint wrapper exports a per-replica one."""
    for word in shlex.split(" ".join(service.get("entrypoint", []))):
        if word.startswith("VIDRELAY_DATA_DIR="):
            return word.partition("=")[2].split("$")[0]
    return environment(service)["VIDRELAY_DATA_DIR"]


def active(profiles: set[str]) -> dict[str, dict[str, Any]]:
    return {n: s for n, s in SERVICES.items() if not s.get("profiles") or profiles & set(s["profiles"])}


def role(service: dict[str, Any]) -> str:
    command = service.get("command", ["run"])
    return command[command.index("--role") + 1] if "--role" in command else "all"


def test_every_vidrelay_variable_is_a_setting() -> None:
    for path in (COMPOSE, ENV_EXAMPLE):
        used = set(VARIABLE.findall(path.read_text(encoding="utf-8")))
        assert used, path
        assert used <= SETTING_VARIABLES, (
            f"{path.name}: not in the settings model: {used - SETTING_VARIABLES}"
        )


PROFILES = [
    {"sqlite"},
    {"postgres"},
    {"sqlite", LOCAL},
    {"postgres", LOCAL},
    set(env_example()["COMPOSE_PROFILES"].split(",")),
    set(local_dotenv()["COMPOSE_PROFILES"].split(",")),
]


@pytest.mark.parametrize("profiles", PROFILES)
def test_each_profile_runs_one_telegram_poller_and_the_local_bot_api_only_in_its_profile(
    profiles: set[str],
) -> None:
    services = active(profiles)
    pollers = [name for name, s in services.items() if name in VIDRELAY and role(s) in {"all", "ingest"}]
    assert len(pollers) == 1, f"Telegram allows one poller per token; {profiles} runs {pollers}"
    assert (BOT_API.keys() <= services.keys()) == (LOCAL in profiles)
    for name, service in services.items():
        for needed, condition in service.get("depends_on", {}).items():
            assert needed in services or condition.get("required") is False, f"{name} needs {needed}"


def test_a_token_alone_starts_the_bot_against_the_cloud_bot_api() -> None:
    required = re.findall(r"\$\{\w+:?\?", COMPOSE.read_text(encoding="utf-8"))
    assert required == [], "Compose refuses to start while a ${X:?} variable is missing"
    dotenv = {"COMPOSE_PROFILES": "sqlite", "VIDRELAY_BOT_TOKEN": "123:abc"}
    [bot] = [s for s in active({"sqlite"}).values() if s in VIDRELAY.values()]
    settings = load_settings(environment(bot, dotenv))
    assert (settings.telegram_api_url, settings.telegram_local_mode) == ("https://api.telegram.org", False)


def test_every_image_is_pinned_and_every_service_has_a_healthcheck_and_rotated_logs() -> None:
    image_checks_health = any(i.keyword == "HEALTHCHECK" for i in stages(dockerfile())[-1])
    for name, service in SERVICES.items():
        if service.get("build") is None:
            tag = service["image"].partition(":")[2]
            assert re.fullmatch(r"\d+(\.\d+)+", tag), f"{name}: {service['image']} is not a pinned version"
        assert "healthcheck" in service or (name in VIDRELAY and image_checks_health), name
        logging = service["logging"]
        assert logging["driver"] == "json-file", name
        assert logging["options"]["max-size"], name
        assert int(logging["options"]["max-file"]) >= 2, name


@pytest.mark.parametrize("password", ["p/a#s@s:w%rd?", "with space+plus&amp=", "äöü:/?#[]@"])
def test_any_postgres_password_reaches_vidrelay_intact(password: str) -> None:
    dotenv = {**env_example(), "POSTGRES_PASSWORD": password}
    database = environment(SERVICES["postgres"], dotenv)["POSTGRES_PASSWORD"]
    for name in ("ingest", "worker"):
        dsn = load_settings(environment(SERVICES[name], dotenv)).database_dsn
        assert unquote(urlsplit(dsn).password or "") == database == password, name


def test_the_postgres_profile_has_a_database_one_ingest_and_scalable_workers() -> None:
    services = active({"postgres"})
    database = services["postgres"]
    assert "healthcheck" in database
    roles = {name: role(s) for name, s in services.items() if name in VIDRELAY}
    assert sorted(roles.values()) == ["ingest", "worker"], roles
    for name in roles:
        env = environment(services[name])
        assert env["VIDRELAY_STORE"] == "postgres"
        assert urlsplit(load_settings(env).database_dsn).hostname == "postgres"
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
    worker = services[next(n for n, r in roles.items() if r == "worker")]
    assert not {"container_name", "ports"} & worker.keys(), "--scale needs neither fixed"


def test_uploads_are_files_the_local_bot_api_server_can_open_at_the_same_path() -> None:
    ((api_name, api),) = BOT_API.items()
    assert environment(api).get("TELEGRAM_LOCAL"), "--local: file:// uploads and 2000 MB"
    api_mounts = {target: source for source, target, *_ in (v.split(":") for v in api["volumes"])}
    for name, service in VIDRELAY.items():
        env = environment(service, local_dotenv())
        assert env["VIDRELAY_TELEGRAM_LOCAL_MODE"] == "true", name
        assert urlsplit(env["VIDRELAY_TELEGRAM_API_URL"]).hostname == api_name, name
        mounts = [v.split(":")[:2] for v in service["volumes"]]
        shared = [
            (source, target)
            for source, target in mounts
            if api_mounts.get(target) == source
            and (
                PurePosixPath(target) == PurePosixPath(data_dir(service))
                or PurePosixPath(target) in PurePosixPath(data_dir(service)).parents
            )
        ]
        assert shared, (
            f"{name}: its data folder {data_dir(service)} is not mounted at the same path in {api_name}"
        )


def test_every_service_outlives_the_bots_shutdown_grace() -> None:
    default = Settings.model_fields["shutdown_grace_seconds"].default
    graces = {
        name: float(environment(s).get("VIDRELAY_SHUTDOWN_GRACE_SECONDS", default))
        for name, s in VIDRELAY.items()
    }
    longest = max(graces.values())
    for name, service in SERVICES.items():
        assert "stop_grace_period" in service, f"{name}: Docker's default is 10 s"
        stop = duration_seconds(service["stop_grace_period"])
        assert stop > graces.get(name, longest), (
            f"{name}: SIGKILL after {stop} s cuts the graceful stop short"
        )


def test_every_service_restarts_and_pid_1_reaps_children() -> None:
    for name, service in SERVICES.items():
        assert service.get("restart") in {"always", "unless-stopped", "on-failure"}, name
    for name, service in VIDRELAY.items():
        assert service.get("init") is True, f"{name}: orphaned yt-dlp/ffmpeg children become zombies"


def test_secrets_come_from_a_git_ignored_env_file() -> None:
    for name, service in VIDRELAY.items():
        assert ".env" in service["env_file"], name
    ignored = subprocess.run(["git", "check-ignore", "-q", ".env"], cwd=ROOT, check=False)
    example = subprocess.run(["git", "check-ignore", "-q", ".env.example"], cwd=ROOT, check=False)
    assert (ignored.returncode, example.returncode) == (0, 1)
    for name, service in SERVICES.items():
        for variable, value in service.get("environment", {}).items():
            if any(word in variable for word in ("HASH", "PASSWORD", "TOKEN", "SECRET")):
                assert str(value).startswith("${"), f"{name}: {variable} is written into compose.yaml"
    secrets = {k: v for k, v in env_example().items() if any(w in k for w in ("HASH", "PASSWORD", "TOKEN"))}
    assert secrets
    assert not any(secrets.values()), secrets


def _parses(argv: list[str]) -> bool:
    try:
        build_parser().parse_args(argv)
    except SystemExit:
        return False
    return True


@pytest.mark.parametrize("name", sorted(VIDRELAY))
def test_each_service_command_is_one_the_cli_knows(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    command = VIDRELAY[name].get("command", ["run"])
    if "--role" in command and not _parses(["run", "--role", "worker"]):
        pytest.skip("`vidrelay run --role` arrives with the PostgreSQL scale-out (issue 9)")
    assert _parses(command), capsys.readouterr().err


def test_the_worker_wrapper_gives_each_replica_its_own_folder(tmp_path: Path) -> None:
    """The entrypoint's shell text, run for real with the volume at a temporary path."""
    entrypoint = SERVICES["worker"]["entrypoint"]
    script = entrypoint[2].replace("$$", "$").replace("/data/", f"{tmp_path}/")  # as Compose unescapes it
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "vidrelay"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$VIDRELAY_DATA_DIR" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    result = subprocess.run(
        [entrypoint[0], entrypoint[1], script, *entrypoint[3:], *SERVICES["worker"]["command"]],
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    folder, *argv = result.stdout.splitlines()
    assert folder == f"{tmp_path}/workers/{socket.gethostname()}"
    assert Path(folder).is_dir()
    assert argv == SERVICES["worker"]["command"]
