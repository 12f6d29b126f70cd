"""The yt-dlp updater installs a release from the index beside the running one and switches to it
atomically: a download under way finishes on the old one, a broken release is never selected,
old versions go, an up-to-date install is left alone, concurrent updates share one pip run."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater, packaged_version, release_of
from tests.support.updater_index import (
    V1,
    V2,
    V3,
    MakeUpdater,
    hidden_leftovers,
    installs,
    pip_calls,
    publish,
    publish_ejs,
    run_yt_dlp,
    selected,
    versions,
    wait_for_file,
)

pytestmark = pytest.mark.slow


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


def test_release_of_matches_what_yt_dlp_prints_with_what_pip_reports() -> None:
    assert release_of("2025.01.12") == release_of("2025.1.12") == (2025, 1, 12)
    assert release_of("2025.01.12.232754") == release_of("2025.1.12.232754.dev0")
    assert release_of("2025.1.12\n") == (2025, 1, 12)
    assert release_of("2025.02.01") > release_of("2025.1.31.999999.dev0")
    assert release_of("garbage") == ()


def test_an_unknown_channel_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="channel"):
        YtDlpUpdater(tmp_path, channel="beta")  # type: ignore[arg-type]
