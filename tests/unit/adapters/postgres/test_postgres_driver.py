"""The asyncpg floor: what pyproject.toml allows is what the store needs, the installed driver has
the API the store calls, and an older one is refused with one line."""

from __future__ import annotations

import inspect
import re
import tomllib

import asyncpg

from adapters.postgres.driver import FLOOR, too_old
from tests.support.deploy_files import ROOT


def test_every_asyncpg_requirement_of_pyproject_is_the_floor_the_store_checks() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = [*project["optional-dependencies"]["postgres"], *project["optional-dependencies"]["dev"]]
    floors = {
        re.fullmatch(r"asyncpg>=([\d.]+),<1", r).group(1) for r in requirements if r.startswith("asyncpg")
    }  # type: ignore[union-attr]

    assert floors == {".".join(map(str, FLOOR))}


def test_the_installed_asyncpg_takes_what_the_store_passes_its_pools() -> None:
    assert too_old(asyncpg.__version__) is None
    assert {"reset", "connection_class", "min_size", "max_size"} <= set(
        inspect.signature(asyncpg.create_pool).parameters
    )
    connect = set(inspect.signature(asyncpg.connect).parameters)
    assert {"command_timeout", "server_settings", "connection_class", "timeout"} <= connect


def test_an_older_asyncpg_is_one_line_naming_the_floor() -> None:
    assert too_old("0.29.0") == (
        "asyncpg 0.29.0 is too old for the PostgreSQL store: install asyncpg>=0.30 (pip install -U asyncpg)"
    )
    assert too_old("0.30.0") is None
    assert too_old("1.0.0.dev1") is None
