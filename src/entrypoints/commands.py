"""The commands behind the CLI; each one builds what it needs through the container."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from adapters.filesystem.folder_lock import FolderInUse, holding_folder
from entrypoints.data_folder import data_folder_problem
from entrypoints.preflight import missing_tools
from entrypoints.settings import Settings
from ports.clock import Clock

CREATES_DATA_FOLDER = {"run": True, "restore": True, "jobs": False}
"""The commands that write the data folder, and whether they make it when it is missing (`jobs`
does not: a mistyped folder must not become an empty store)."""


def dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if (problem := _unusable_data_folder(args.command, settings)) is not None:
        print(f"vidrelay: {problem}", file=sys.stderr)
        return 2
    if args.command == "jobs":
        from entrypoints.job_tools import run_jobs

        return asyncio.run(run_jobs(args, settings))
    if args.command == "check":
        return asyncio.run(_check(settings))
    if args.command == "backup":
        from entrypoints.backup import run_backup

        return run_backup(settings, args.path, clock=_wall_clock(settings))
    if args.command == "restore":
        from entrypoints.restore import run_restore

        return run_restore(settings, Path(args.path), clock=_wall_clock(settings))
    if args.command in ("run", "demo") and (missing := missing_tools()) is not None:
        print(f"vidrelay: {missing}", file=sys.stderr)
        return 2
    if args.command == "run":
        from entrypoints.run import run_bot

        if not settings.single_process_store:
            return run_bot(settings, webhook=args.webhook, role=args.role)
        # The store, the blob folder and the boot's recovery of every other holder's leases
        # assume this process is the only one on the data folder: a second one would run the
        # first one's jobs again.
        try:
            with holding_folder(settings.data_dir, "vidrelay run"):
                return run_bot(settings, webhook=args.webhook, role=args.role)
        except FolderInUse as error:
            print(f"vidrelay: {error}: one `vidrelay run` per data folder", file=sys.stderr)
            return 2
    if args.command == "demo":
        from entrypoints.demo.main import run_demo

        return run_demo()
    print(f"vidrelay: unknown command {args.command}", file=sys.stderr)
    return 2


def _wall_clock(settings: Settings) -> Clock:
    """The container's clock, asked without opening the store (a backup copies the file itself)."""
    from entrypoints.wiring.stores import Stores

    return Stores(settings=settings).clock()


def _unusable_data_folder(command: str, settings: Settings) -> str | None:
    create = CREATES_DATA_FOLDER.get(command)
    return None if create is None else data_folder_problem(settings.data_dir, create=create)


async def _check(settings: Settings) -> int:
    from entrypoints.check import EXIT_FAILED, EXIT_PASSED, run_checks

    results = await run_checks(settings)
    for result in results:
        print(result.line())
    return EXIT_PASSED if all(r.ok for r in results) else EXIT_FAILED
