"""The yt-dlp updater against real pip and real child processes, offline.

The package index is a folder of fake `yt-dlp` wheels built here and served with
`--find-links DIR --no-index --isolated` (no pip configuration, no network). A fake yt-dlp
prints its version for `--version`; with `--hold READY RELEASE OUT` it waits for RELEASE and
then imports a module of its install and writes that module's version to OUT.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater, packaged_version, release_of

pytestmark = pytest.mark.slow

V1, V2, V3 = "2099.1.1", "2099.2.1", "2099.3.1"
WAIT = 60.0
"""Upper bound for a child process to reach a state the test waits for; hit only when broken."""

MAIN = """\
import os
import sys
import time

from yt_dlp.version import __version__

args = sys.argv[1:]
if args == ["--version"]:
    print(__version__)
    sys.exit(0)
if args[:1] == ["--hold"]:
    ready, release, out = args[1:4]
    open(ready, "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(release):
        if time.monotonic() > deadline:
            sys.exit(3)
        time.sleep(0.02)
    from yt_dlp import late  # imported only now, from the install this process started with

    with open(out, "w") as f:
        f.write(late.VERSION)
    sys.exit(0)
sys.exit(2)
"""

PIP_WRAPPER = """\
import os
import sys

with open(os.environ["PIP_CALLS_LOG"], "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
os.execv(sys.executable, [sys.executable, "-m", "pip", *sys.argv[1:]])
"""


def yt_dlp_files(printed: str, broken: str | None = None) -> dict[str, str]:
    files = {
        "yt_dlp/__init__.py": "",
        "yt_dlp/__main__.py": MAIN,
        "yt_dlp/version.py": f"__version__ = {printed!r}\n",
        "yt_dlp/late.py": f"VERSION = {printed!r}\n",
    }
    if broken == "exit":
        files["yt_dlp/__main__.py"] = "import sys\nsys.stderr.write('broken build\\n')\nsys.exit(1)\n"
    elif broken == "import":
        files["yt_dlp/__init__.py"] = "raise ImportError('broken build')\n"
    elif broken == "wrong-version":
        files["yt_dlp/version.py"] = "__version__ = '1999.01.01'\n"
    return files


def publish(
    index: Path, version: str, printed: str | None = None, broken: str | None = None, ejs: str | None = None
) -> None:
    """A wheel of the fake yt-dlp, by hand: dist-info METADATA, WHEEL and a RECORD with hashes.
    `ejs`: like the real releases, its `default` extra pins the yt-dlp-ejs of that version."""
    files = yt_dlp_files(printed or _yt_dlp_style(version), broken)
    extra = f"Provides-Extra: default\nRequires-Dist: yt-dlp-ejs=={ejs}; extra == 'default'\n" if ejs else ""
    _wheel(index, "yt-dlp", version, files, extra)


def publish_ejs(index: Path, version: str) -> None:
    _wheel(index, "yt-dlp-ejs", version, {"yt_dlp_ejs/__init__.py": f"version = {version!r}\n"})


def _wheel(index: Path, name: str, version: str, files: dict[str, str], metadata: str = "") -> None:
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    files[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata}"
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: vidrelay-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [f"{path},sha256={_digest(text)},{len(text.encode())}" for path, text in files.items()]
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    index.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(index / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def _yt_dlp_style(version: str) -> str:
    """yt-dlp prints zero-padded dates (2099.01.01) where pip normalizes (2099.1.1)."""
    year, month, day, *rest = version.split(".")
    return ".".join([year, month.zfill(2), day.zfill(2), *rest])


@pytest.fixture
def index(tmp_path: Path) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    return folder


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def pip_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "pip-calls.log"
    log.touch()
    monkeypatch.setenv("PIP_CALLS_LOG", str(log))
    return log


MakeUpdater = Callable[..., YtDlpUpdater]


@pytest.fixture
def make_updater(tmp_path: Path, index: Path, data: Path, pip_log: Path) -> MakeUpdater:
    """An updater on the test's index; pip runs through a wrapper that logs every call."""
    wrapper = tmp_path / "pip_wrapper.py"
    wrapper.write_text(PIP_WRAPPER)

    def build(**overrides: Any) -> YtDlpUpdater:
        options: dict[str, Any] = {
            "data_dir": data,
            "pip_args": ("--isolated", "--no-index", "--find-links", str(index)),
            "pip_command": (sys.executable, str(wrapper)),
            **overrides,
        }
        return YtDlpUpdater(**options)

    return build


def pip_calls(log: Path) -> list[str]:
    return log.read_text().splitlines()


def installs(log: Path) -> list[str]:
    return [call for call in pip_calls(log) if "--target" in call]


def selected(data: Path) -> str:
    link = data / "ytdlp" / "current"
    assert link.is_symlink()
    return os.readlink(link)


def versions(data: Path) -> set[str]:
    return {p.name for p in (data / "ytdlp" / "versions").iterdir()}


def hidden_leftovers(data: Path) -> list[str]:
    root = data / "ytdlp"
    return [p.name for p in [*root.iterdir(), *(root / "versions").iterdir()] if p.name.startswith(".")]


async def run_yt_dlp(data: Path, *args: str) -> tuple[int, str]:
    """Spawn yt-dlp the way every run does: the locator resolves `current` once, at spawn time."""
    command = YtDlpLocator(data).command()
    proc = await asyncio.create_subprocess_exec(
        *command.argv,
        *args,
        env=dict(command.env),
        cwd=data.parent,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), WAIT)
    assert proc.returncode is not None
    return proc.returncode, out.decode().strip()


def wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


# ----------------------------------------------------------------------------------------------


async def test_without_an_install_the_packaged_yt_dlp_is_current(
    make_updater: MakeUpdater, data: Path
) -> None:
    updater = make_updater()

    version = await updater.current_version()

    assert version == packaged_version()
    assert version is not None
    assert YtDlpLocator(data).command().install_dir is None
    code, printed = await run_yt_dlp(data, "--version")
    assert code == 0
    assert release_of(printed) == release_of(version)


async def test_the_first_update_installs_the_release_and_selects_it(
    make_updater: MakeUpdater, index: Path, data: Path, pip_log: Path
) -> None:
    publish(index, V1)
    updater = make_updater()

    outcome = await updater.update()

    assert (outcome.changed, outcome.version_before, outcome.version_after, outcome.error) == (
        True,
        packaged_version(),
        V1,
        None,
    )
    assert selected(data) == f"versions/{V1}"
    assert await updater.current_version() == V1
    assert YtDlpLocator(data).command().install_dir == (data / "ytdlp" / "versions" / V1).resolve()
    assert await run_yt_dlp(data, "--version") == (0, "2099.01.01")
    assert len(installs(pip_log)) == 1
    assert hidden_leftovers(data) == []


async def test_an_update_keeps_the_extras_a_release_needs_its_own_yt_dlp_ejs_beside_it(
    make_updater: MakeUpdater, index: Path, data: Path, pip_log: Path
) -> None:
    publish_ejs(index, "0.1.0")
    publish_ejs(index, "0.2.0")
    publish(index, V1, ejs="0.2.0")

    assert (await make_updater().update()).changed

    [install] = installs(pip_log)
    assert f"yt-dlp[default]=={V1}" in install.split()
    version_file = data / "ytdlp" / "versions" / V1 / "yt_dlp_ejs" / "__init__.py"
    assert version_file.read_text() == "version = '0.2.0'\n"  # the one this release pins


async def test_an_update_installs_beside_the_running_version_and_switches_atomically(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    publish(index, V1)
    updater = make_updater()
    await updater.update()
    publish(index, V2)
    assert selected(data) == f"versions/{V1}"

    seen, stop = set(), threading.Event()

    def watch_link() -> None:
        while not stop.is_set():
            try:
                seen.add(os.readlink(data / "ytdlp" / "current"))
            except OSError as e:
                seen.add(f"missing: {e}")

    watcher = threading.Thread(target=watch_link)
    watcher.start()
    try:
        outcome = await updater.update()
    finally:
        stop.set()
        watcher.join()

    assert (outcome.changed, outcome.version_before, outcome.version_after) == (True, V1, V2)
    assert versions(data) == {V1, V2}
    assert selected(data) == f"versions/{V2}"
    # The watcher may miss the last instants before it stops; it must never see a missing link.
    assert f"versions/{V1}" in seen
    assert seen <= {f"versions/{V1}", f"versions/{V2}"}, f"the link was missing or pointed elsewhere: {seen}"
    assert await run_yt_dlp(data, "--version") == (0, "2099.02.01")
    assert hidden_leftovers(data) == []


async def test_a_download_started_before_the_switch_completes_on_the_old_version(
    make_updater: MakeUpdater, index: Path, data: Path, tmp_path: Path
) -> None:
    publish(index, V1)
    updater = make_updater()
    await updater.update()
    ready, release, old_out, new_out = (tmp_path / name for name in ("ready", "release", "old", "new"))
    running = asyncio.create_task(run_yt_dlp(data, "--hold", str(ready), str(release), str(old_out)))
    await asyncio.to_thread(wait_for_file, ready)

    publish(index, V2)
    outcome = await updater.update()
    assert outcome.changed
    assert selected(data) == f"versions/{V2}"
    release.touch()

    assert (await running)[0] == 0
    assert old_out.read_text() == "2099.01.01"
    assert await run_yt_dlp(data, "--hold", str(ready), str(release), str(new_out)) == (0, "")
    assert new_out.read_text() == "2099.02.01"


@pytest.mark.parametrize("broken", ["exit", "import", "wrong-version"])
async def test_a_broken_release_is_never_selected_and_its_directory_is_removed(
    make_updater: MakeUpdater, index: Path, data: Path, broken: str
) -> None:
    publish(index, V2)
    updater = make_updater()
    await updater.update()
    publish(index, V3, broken=broken)

    outcome = await updater.update()

    assert (outcome.changed, outcome.version_before, outcome.version_after) == (False, V2, V2)
    assert outcome.error is not None
    assert outcome.error.startswith("verify:")
    assert selected(data) == f"versions/{V2}"
    assert versions(data) == {V2}
    assert hidden_leftovers(data) == []
    assert await run_yt_dlp(data, "--version") == (0, "2099.02.01")


async def test_versions_older_than_the_previous_one_are_removed(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    updater = make_updater()
    for version in (V1, V2, V3):
        publish(index, version)
        assert (await updater.update()).version_after == version

    assert versions(data) == {V2, V3}
    assert selected(data) == f"versions/{V3}"


async def test_an_up_to_date_install_is_left_alone_without_running_pip_install(
    make_updater: MakeUpdater, index: Path, data: Path, pip_log: Path
) -> None:
    publish(index, V2)
    updater = make_updater()
    await updater.update()
    publish(index, V1)  # an older release on the index is no reason to move

    outcome = await updater.update()

    assert (outcome.changed, outcome.version_before, outcome.version_after, outcome.error) == (
        False,
        V2,
        V2,
        None,
    )
    assert len(installs(pip_log)) == 1
    assert len(pip_calls(pip_log)) == 3
    assert selected(data) == f"versions/{V2}"


async def test_concurrent_updates_share_one_run_of_pip(
    make_updater: MakeUpdater, index: Path, data: Path, pip_log: Path
) -> None:
    publish(index, V1)
    updater = make_updater()

    outcomes = await asyncio.gather(updater.update(), updater.update(), updater.update())

    assert outcomes[0].changed
    assert all(o is outcomes[0] for o in outcomes)
    assert len(pip_calls(pip_log)) == 2  # one version check, one install
    assert len(installs(pip_log)) == 1
    assert versions(data) == {V1}


async def test_the_nightly_channel_takes_pre_releases_and_stable_does_not(
    make_updater: MakeUpdater, index: Path, tmp_path: Path
) -> None:
    nightly = "2099.2.1.123456.dev0"
    publish(index, V1)
    publish(index, nightly, printed="2099.02.01.123456")

    stable_outcome = await make_updater(data_dir=tmp_path / "stable").update()
    nightly_outcome = await make_updater(data_dir=tmp_path / "nightly", channel="nightly").update()

    assert stable_outcome.version_after == V1
    assert nightly_outcome.version_after == nightly
    assert nightly_outcome.error is None


async def test_an_unusable_index_keeps_the_current_version(
    make_updater: MakeUpdater, index: Path, data: Path, tmp_path: Path
) -> None:
    publish(index, V1)
    await make_updater().update()
    empty = tmp_path / "empty-index"
    empty.mkdir()

    outcome = await make_updater(pip_args=("--isolated", "--no-index", "--find-links", str(empty))).update()

    assert (outcome.changed, outcome.version_after) == (False, V1)
    assert outcome.error is not None
    assert outcome.error.startswith("version check:")
    assert selected(data) == f"versions/{V1}"


async def test_a_hung_pip_is_killed_at_its_timeout(make_updater: MakeUpdater, tmp_path: Path) -> None:
    pid_file = tmp_path / "pip.pid"
    hang = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    # The timeout outlasts the start of the child, so the pid is written before it is killed.
    updater = make_updater(pip_command=(sys.executable, "-c", hang), check_timeout=5.0)

    outcome = await updater.update()

    assert outcome.error == "version check: timed out after 5 s"
    assert not outcome.changed
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


HANGING_INSTALL = """\
import os
import sys
import time

args = sys.argv[1:]
if "--target" in args:
    target = args[args.index("--target") + 1]
    os.makedirs(os.path.join(target, "yt_dlp"))
    with open(os.environ["PIP_HANG_PID"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["PIP_HANG_PID"] + ".tmp", os.environ["PIP_HANG_PID"])
    time.sleep(60)
os.execv(sys.executable, [sys.executable, "-m", "pip", *args])
"""


async def test_a_cancelled_update_kills_pip_removes_the_half_made_install_and_keeps_the_version(
    make_updater: MakeUpdater, index: Path, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(index, V1)
    await make_updater().update()
    publish(index, V2)
    pid_file = tmp_path / "hanging-pip.pid"
    monkeypatch.setenv("PIP_HANG_PID", str(pid_file))
    script = tmp_path / "hanging_pip.py"
    script.write_text(HANGING_INSTALL)
    updater = make_updater(pip_command=(sys.executable, str(script)))
    updating = asyncio.create_task(updater.update())
    await asyncio.to_thread(wait_for_file, pid_file)

    updating.cancel()
    with pytest.raises(asyncio.CancelledError):
        await updating

    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert selected(data) == f"versions/{V1}"
    assert versions(data) == {V1}
    assert hidden_leftovers(data) == []
    pid_file.unlink()
    assert (await make_updater().update()).version_after == V2


async def test_leftovers_of_a_crashed_update_are_removed_by_the_next_one(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    publish(index, V1)
    updater = make_updater()
    await updater.update()
    half_made = data / "ytdlp" / "versions" / f".installing-{V2}-dead"
    (half_made / "yt_dlp").mkdir(parents=True)
    (data / "ytdlp" / ".current-dead").symlink_to(f"versions/.installing-{V2}-dead")

    await updater.update()

    assert hidden_leftovers(data) == []
    assert selected(data) == f"versions/{V1}"


def test_release_of_matches_what_yt_dlp_prints_with_what_pip_reports() -> None:
    assert release_of("2025.01.12") == release_of("2025.1.12") == (2025, 1, 12)
    assert release_of("2025.01.12.232754") == release_of("2025.1.12.232754.dev0")
    assert release_of("2025.1.12\n") == (2025, 1, 12)
    assert release_of("2025.02.01") > release_of("2025.1.31.999999.dev0")
    assert release_of("garbage") == ()


def test_an_unknown_channel_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="channel"):
        YtDlpUpdater(tmp_path, channel="beta")  # type: ignore[arg-type]
