"""`vidrelay jobs ...`: the operator's tools on the queue, through the store ports.

A store that cannot be reached (or is not ours) is one line and exit 1, never a traceback: this is
what an operator runs when something is already wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from entrypoints.durations import show_duration
from entrypoints.queue_report import as_json, as_table
from entrypoints.settings import Settings
from entrypoints.wiring.stores import open_store
from ports.errors import StoreError
from ports.store import Store

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


async def run_jobs(args: argparse.Namespace, settings: Settings) -> int:
    if (wrong := _wrong_store(settings)) is not None:
        print(f"vidrelay: {wrong}", file=sys.stderr)
        return EXIT_USAGE
    try:
        async with open_store(settings) as opened:
            return await _run(args, opened.store, opened.clock.now())
    except StoreError as error:
        print(f"vidrelay: {error}", file=sys.stderr)
        return EXIT_FAILED


async def _run(args: argparse.Namespace, store: Store, now: float) -> int:
    match args.jobs_command:
        case "list":
            rows = await (store.list_failed(args.limit) if args.failed else store.list_jobs(args.limit))
            for row in rows:
                data = asdict(row)
                print(json.dumps(data, default=str) if args.json else _line(data))
            if not args.json:
                print(f"({len(rows)} {'failed' if args.failed else 'queued'} job(s))")
        case "stats":
            stats = await store.stats(now)
            print(as_json(stats) if args.json else "\n".join(as_table(stats)))
        case "retry" if args.all_failed:
            new_ids = await store.retry_failed(None, now)
            print(f"requeued {len(new_ids)} job(s): {', '.join(map(str, new_ids)) or '-'}")
        case "retry":
            return await _retry(store, list(dict.fromkeys(args.ids)), now)
        case "purge":
            before = None if args.older_than is None else now - args.older_than
            purged = await store.purge_failed(failed_before=before, name=args.name)
            print(f"purged {purged} failed job(s){_which(args)}")
    return EXIT_OK


async def _retry(store: Store, failed_ids: list[int], now: float) -> int:
    """One id at a time, so that an id that is not (or no longer) a dead letter is named."""
    requeued: list[tuple[int, list[int]]] = []
    unknown: list[tuple[int, list[int]]] = []
    for failed_id in failed_ids:
        new_ids = await store.retry_failed([failed_id], now)
        (requeued if new_ids else unknown).append((failed_id, new_ids))
    if requeued:
        print(f"requeued {len(requeued)} job(s): {', '.join(str(new[0]) for _, new in requeued)}")
    if unknown:
        names = ", ".join(str(failed_id) for failed_id, _ in unknown)
        print(
            f"vidrelay: no failed job {names}: `vidrelay jobs list --failed` shows the ids", file=sys.stderr
        )
        return EXIT_FAILED
    return EXIT_OK


def _wrong_store(settings: Settings) -> str | None:
    # Opening a missing SQLite file creates an empty store: a mistyped data folder would then
    # look like an empty queue, and leave a stray database behind.
    if settings.store == "sqlite" and not settings.sqlite_path.is_file():
        return f"no SQLite store at {settings.sqlite_path}: is VIDRELAY_DATA_DIR the bot's data folder?"
    if settings.store == "memory":
        return "the memory store lives and dies inside the bot's process: there is no queue to look at"
    return None


def _which(args: argparse.Namespace) -> str:
    named = f" of {args.name}" if args.name else ""
    aged = (
        f" that failed more than {show_duration(args.older_than)} ago" if args.older_than is not None else ""
    )
    return named + aged


def _line(row: dict[str, object]) -> str:
    error = str(row.get("error") or row.get("last_error") or "").splitlines()
    parts = [f"#{row['id']}", str(row["name"]), f"attempts={row['attempts']}/{row['max_attempts']}"]
    if row.get("claimed_by"):
        parts.append(f"running on {row['claimed_by']}")
    parts.append(json.dumps(row["payload"], ensure_ascii=False)[:120])
    if error:
        parts.append(f"error={error[0][:120]}")
    return "  ".join(parts)
