"""aiogram's models built on first use (adapters/telegram/deferred_models.py): the bot's import
builds none of them, and each one, once used, is the model aiogram's own import would have built.

Fresh interpreters, since this process has imported aiogram long ago.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[4]
CHILD_TIMEOUT_SECONDS = 300.0
"""A bound: using every aiogram model once takes seconds of CPU, more on a loaded machine."""

_COUNT_BUILT = """
import json
import entrypoints.run  # the bot's imports, in the bot's order
import aiogram.methods, aiogram.types
from adapters.telegram.deferred_models import deferred_rebuilds

def declared(module, name):
    # a model class that sets `name` itself: every pydantic model sets `__pydantic_complete__`,
    # every method `__api_method__` (their abstract base declares it as a property)
    found = (getattr(module, each) for each in module.__all__)
    found = (m for m in found if isinstance(m, type))
    return [m for m in found if not isinstance(vars(m).get(name, property()), property)]

types = declared(aiogram.types, "__pydantic_complete__")
methods = declared(aiogram.methods, "__api_method__")
print(json.dumps({
    "skipped": deferred_rebuilds(),
    "types": len(types),
    "types_built": sorted(m.__name__ for m in types if m.__pydantic_complete__),
    "methods": len(methods),
    "methods_built": sorted(m.__name__ for m in methods if m.__pydantic_complete__),
}))
"""


async def python(*args: str) -> Any:
    """Run `python ARGS` in the repository; its stdout, read as JSON."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        cwd=REPO,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), CHILD_TIMEOUT_SECONDS)
    assert process.returncode == 0, err.decode()[-3000:]
    return json.loads(out)


async def test_the_bots_imports_build_none_of_aiograms_models() -> None:
    counts = await python("-c", _COUNT_BUILT)

    # Every rebuild aiogram's import asks for is skipped (one per type): when aiogram changes
    # what this relies on, the hook does nothing and this says so.
    assert counts["skipped"] == counts["types"] > 300, counts
    # Built already: only what a module of ours makes at its import (a constant or two, such as
    # the messenger's LinkPreviewOptions), not the ~400 types aiogram's import builds.
    assert len(counts["types_built"]) < counts["types"] / 20, counts
    assert counts["methods"] > 150, counts
    assert counts["methods_built"] == [], counts


async def test_each_model_built_on_first_use_is_the_one_aiograms_import_builds() -> None:
    eager, deferred = await asyncio.gather(
        python("-m", "tests.support.aiogram_models", "eager"),
        python("-m", "tests.support.aiogram_models", "deferred"),
    )

    assert eager["deferred_rebuilds"] == 0 < deferred["deferred_rebuilds"]
    assert len(eager["roots"]) > 700  # the types, the methods, a Response per method
    assert deferred["roots"] == eager["roots"]
    assert deferred["named"] == eager["named"]
    assert all(len(bodies) == 1 for bodies in deferred["named"].values())  # one meaning per name
