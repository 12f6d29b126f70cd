"""The updater goes back: a release named broken is left for the newest older version kept (the
previous install, or the packaged yt-dlp), and is not installed again until a newer one comes."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.ytdlp.updater import packaged_version
from tests.support.updater_index import (
    V1,
    V2,
    V3,
    MakeUpdater,
    installs,
    publish,
    run_yt_dlp,
    selected,
    versions,
)

pytestmark = pytest.mark.slow


async def test_a_broken_release_is_left_for_the_previous_install(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    updater = make_updater()
    for version in (V1, V2):
        publish(index, version)
        await updater.update()
    assert await updater.previous_version() == V1

    outcome = await updater.roll_back(avoid=[V2])

    assert (outcome.changed, outcome.version_before, outcome.version_after, outcome.error) == (
        True,
        V2,
        V1,
        None,
    )
    assert selected(data) == f"versions/{V1}"
    assert await updater.current_version() == V1
    assert await run_yt_dlp(data, "--version") == (0, "2099.01.01")
    assert versions(data) == {V1, V2}  # a download that started on V2 may still import from it


async def test_the_first_release_is_left_for_the_packaged_yt_dlp(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    publish(index, V1)
    updater = make_updater()
    await updater.update()

    outcome = await updater.roll_back(avoid=["2099.01.01"])  # as yt-dlp prints it

    assert (outcome.changed, outcome.version_after) == (True, packaged_version())
    assert not (data / "ytdlp" / "current").exists()
    assert await updater.current_version() == packaged_version()
    assert await updater.previous_version() is None


async def test_a_version_in_use_that_is_not_named_broken_stays(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    updater = make_updater()
    for version in (V1, V2):
        publish(index, version)
        await updater.update()

    outcome = await updater.roll_back(avoid=[V1])

    assert (outcome.changed, outcome.version_after, outcome.error) == (False, V2, None)
    assert selected(data) == f"versions/{V2}"


async def test_versions_named_broken_are_skipped_on_the_way_back(
    make_updater: MakeUpdater, index: Path, data: Path
) -> None:
    updater = make_updater()
    for version in (V1, V2, V3):
        publish(index, version)
        await updater.update()
    assert versions(data) == {V2, V3}

    assert await updater.previous_version(avoid=[V2, V3]) == packaged_version()
    outcome = await updater.roll_back(avoid=[V2, V3])

    assert (outcome.changed, outcome.version_after) == (True, packaged_version())


async def test_with_the_packaged_yt_dlp_in_use_there_is_nothing_to_go_back_to(
    make_updater: MakeUpdater,
) -> None:
    updater = make_updater()
    packaged = packaged_version()
    assert packaged is not None

    outcome = await updater.roll_back(avoid=[packaged])

    assert (outcome.changed, outcome.version_after) == (False, packaged)
    assert outcome.error == f"no yt-dlp older than {packaged} is kept"


async def test_a_rolled_back_release_is_not_installed_again_but_a_newer_one_is(
    make_updater: MakeUpdater, index: Path, data: Path, pip_log: Path
) -> None:
    updater = make_updater()
    for version in (V1, V2):
        publish(index, version)
        await updater.update()
    await updater.roll_back(avoid=[V2])

    stays = await updater.update(avoid=[V2])

    assert (stays.changed, stays.version_after, stays.error) == (False, V1, None)
    assert selected(data) == f"versions/{V1}"
    assert len(installs(pip_log)) == 2

    publish(index, V3)
    newer = await updater.update(avoid=[V2])

    assert (newer.changed, newer.version_before, newer.version_after) == (True, V1, V3)
    assert selected(data) == f"versions/{V3}"
    assert versions(data) == {V1, V3}
