"""The commands behind the CLI; each one builds what it needs through the container."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path

from entrypoints.preflight import missing_tools
from entrypoints.settings import Settings


def dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "jobs":
        return asyncio.run(_jobs(args, settings))
    if args.command == "check":
        return asyncio.run(_check(settings))
    if args.command == "backup":
        from entrypoints.backups import run_backup

        return run_backup(settings, Path(args.path))
    if args.command in ("run", "demo") and (missing := missing_tools()) is not None:
        print(f"vidrelay: {missing}", file=sys.stderr)
        return 2
    if args.command == "run":
        from entrypoints.bot.main import run_bot

        return run_bot(settings, webhook=args.webhook, role=args.role)
    if args.command == "demo":
        from entrypoints.demo.main import run_demo

        return run_demo()
    print(f"vidrelay: unknown command {args.command}", file=sys.stderr)
    return 2


async def _check(settings: Settings) -> int:
    from entrypoints.check import EXIT_FAILED, EXIT_PASSED, run_checks

    results = await run_checks(settings)
    for result in results:
        print(result.line())
    return EXIT_PASSED if all(r.ok for r in results) else EXIT_FAILED


async def _jobs(args: argparse.Namespace, settings: Settings) -> int:
    from entrypoints.container import open_store

    async with open_store(settings) as store:
        from adapters.clock import SystemClock

        now = SystemClock().now()
        match args.jobs_command:
            case "list":
                rows = await (store.list_failed(args.limit) if args.failed else store.list_jobs(args.limit))
                for row in rows:
                    data = asdict(row)
                    print(json.dumps(data, default=str) if args.json else _line(data))
                if not args.json:
                    print(f"({len(rows)} {'failed' if args.failed else 'queued'} job(s))")
            case "retry":
                ids = None if args.all_failed else list(args.ids)
                new_ids = await store.retry_failed(ids, now)
                print(f"requeued {len(new_ids)} job(s): {', '.join(map(str, new_ids)) or '-'}")
            case "purge":
                print(f"purged {await store.purge_failed()} failed job(s)")
    return 0


def _line(row: dict[str, object]) -> str:
    error = str(row.get("error") or row.get("last_error") or "").splitlines()
    parts = [f"#{row['id']}", str(row["name"]), f"attempts={row['attempts']}/{row['max_attempts']}"]
    if row.get("claimed_by"):
        parts.append(f"running on {row['claimed_by']}")
    parts.append(json.dumps(row["payload"], ensure_ascii=False)[:120])
    if error:
        parts.append(f"error={error[0][:120]}")
    return "  ".join(parts)
