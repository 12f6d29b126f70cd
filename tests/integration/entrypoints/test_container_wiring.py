"""The real wiring, resolved as `vidrelay run` resolves it: asynchronously, since the store, the
bot and the downloader are resources. Every object it builds gets real collaborators — never a
future of one, nor a provider that would make one when called (in this resolution a factory's
product depending on a resource is a future)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

from dependency_injector import providers

from entrypoints.container import Container, shutdown
from entrypoints.settings import load_settings

TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ012345678"


def collaborators(root: object, depth: int) -> Iterator[tuple[str, object]]:
    """Every attribute of `root`'s objects, `depth` levels down (ours only: core, entrypoints)."""
    seen: set[int] = set()
    todo: list[tuple[str, object, int]] = [(type(root).__name__, root, 0)]
    while todo:
        path, value, level = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        yield path, value
        module = type(value).__module__
        if level < depth and module.startswith(("core.", "entrypoints.")) and hasattr(value, "__dict__"):
            for name, attribute in vars(value).items():
                todo.append((f"{path}.{name}", attribute, level + 1))


async def test_the_run_wiring_resolves_to_real_objects_all_the_way_down(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "VIDRELAY_DATA_DIR": str(tmp_path),
            "VIDRELAY_BOT_TOKEN": TOKEN,
            "VIDRELAY_TELEGRAM_API_URL": "http://127.0.0.1:9",  # never called here
            "VIDRELAY_INLINE_CACHE_CHAT_ID": "-100",
            "VIDRELAY_YTDLP_WARM": "false",
        }
    )
    built = Container(settings=settings)
    try:
        engine = await built.engine.async_()
        jobs = await built.jobs.async_()
        roots = [engine, await built.intake.async_(), await built.observed.async_()]
        roots += [await built.polling.async_(), await built.receiver.async_(), await built.lanes.async_()]
        roots += [job.run.__self__ for job in jobs]  # type: ignore[attr-defined]
        found = [(path, value) for root in roots for path, value in collaborators(root, depth=3)]
    finally:
        await shutdown(built)

    assert [job.name for job in jobs] == [
        "download_video",
        "sweep_blobs",
        "sweep_caches",
        "download_inline",
        "update_ytdlp",
    ]
    assert len(found) > 50, "the walk saw too little to mean anything"
    unresolved = [path for path, value in found if isinstance(value, asyncio.Future | providers.Provider)]
    assert unresolved == []
