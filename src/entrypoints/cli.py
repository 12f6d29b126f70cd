"""`vidrelay` — the command line: run the bot, the offline demo, the job tools, the config."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from entrypoints.durations import duration_argument
from entrypoints.settings import SettingsError, load_settings, misspelt_settings

EXIT_USAGE = 2
ROLES = ("all", "ingest", "worker")


class _PrintVersions(argparse.Action):
    """argparse's own `version` action takes a string made before any argument is parsed; this
    one looks the versions up only when asked."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from entrypoints.version import versions_line

        print(versions_line())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vidrelay",
        description="A Telegram bot that turns a link into the video itself. Configured by VIDRELAY_* "
        "environment variables (see `vidrelay config`).",
    )
    parser.add_argument(
        "--version",
        action=_PrintVersions,
        nargs=0,
        help="print the versions of vidrelay and yt-dlp, and exit",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser("run", help="start the bot (long polling; --webhook for webhook mode)")
    run.add_argument("--webhook", action="store_true", help="receive updates by webhook (secret token)")
    run.add_argument(
        "--role",
        choices=ROLES,
        default="all",
        help="all: Telegram and jobs in one process (default); ingest: Telegram updates into jobs; "
        "worker: jobs only. ingest and worker split one deployment over VIDRELAY_STORE=postgres",
    )
    commands.add_parser("demo", help="the whole pipeline offline: fake Bot API, local videos, real yt-dlp")
    commands.add_parser("config", help="print the effective settings (secrets masked)")
    commands.add_parser(
        "check", help="check the settings, the store, yt-dlp, ffmpeg and the token: one line each"
    )
    backup = commands.add_parser(
        "backup", help="a consistent copy of the SQLite store, safe while the bot runs"
    )
    backup.add_argument("path", help="the copy's file (replaced once the new copy is verified), or a folder")
    restore = commands.add_parser(
        "restore", help="put a backup in place of the SQLite store (the bot stopped; the old store is kept)"
    )
    restore.add_argument("path", help="a file `vidrelay backup` wrote")
    jobs = commands.add_parser("jobs", help="inspect and repair the job queue")
    job_commands = jobs.add_subparsers(dest="jobs_command", metavar="ACTION", required=True)
    listing = job_commands.add_parser("list", help="queued jobs (or --failed ones)")
    listing.add_argument("--failed", action="store_true", help="list dead-lettered jobs instead")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.add_argument("--limit", type=int, default=100)
    retry = job_commands.add_parser("retry", help="move failed jobs back into the queue")
    which = retry.add_mutually_exclusive_group(required=True)
    which.add_argument("ids", nargs="*", type=int, default=[], help="failed job ids")
    which.add_argument("--all-failed", action="store_true")
    stats = job_commands.add_parser(
        "stats", help="jobs by name and state: queued, scheduled, backing off, running, overdue, failed"
    )
    stats.add_argument("--json", action="store_true", help="one JSON object, with the totals")
    purge = job_commands.add_parser("purge", help="delete dead-lettered jobs (never queued or running ones)")
    purge.add_argument(
        "--failed", action="store_true", default=True, help="failed jobs (the default, and the only kind)"
    )
    purge.add_argument(
        "--older-than",
        type=duration_argument,
        metavar="DURATION",
        help="only those that failed longer ago than this: 7d, 12h, 30m, 1d12h",
    )
    purge.add_argument("--name", metavar="JOB", help="only failed jobs of this name (as `jobs stats` shows)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "jobs" and args.jobs_command == "retry" and not (args.ids or args.all_failed):
        parser.error("jobs retry needs failed job ids or --all-failed")
    try:
        settings = load_settings()
    except SettingsError as error:
        if args.command == "check":  # a check that failed, reported like the others
            from entrypoints.check import EXIT_FAILED, settings_failed

            print(settings_failed(str(error)).line())
            return EXIT_FAILED
        print(f"vidrelay: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "config":
        for misspelt in misspelt_settings():
            print(f"vidrelay: warning: {misspelt}", file=sys.stderr)
        for name, value in settings.masked().items():
            print(f"{name}={value}")
        return 0
    from entrypoints.commands import dispatch  # heavy imports only for commands that need them

    return dispatch(args, settings)


if __name__ == "__main__":
    sys.exit(main())
