"""The bot's log as an operator's log shipper reads it: every line of a real run parsed, in both
formats, and the fields the README promises found on the lines that should carry them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi
from testkit.video_site import VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, until_logged

pytestmark = pytest.mark.slow

RFC3339_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)")
_PAIR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^ "]+)(?: |$)')


def logfmt(line: str) -> dict[str, Any]:
    """One text line as its fields: `key=value`, values bare or JSON-quoted, nothing else."""
    fields: dict[str, Any] = {}
    at = 0
    while at < len(line):
        pair = _PAIR.match(line, at)
        assert pair is not None, f"not key=value at {at}: {line}"
        key, value = pair.groups()
        fields[key] = json.loads(value) if value.startswith('"') else value
        at = pair.end()
    return fields


def parsed(log: str, log_format: str) -> list[dict[str, Any]]:
    lines = [line for line in log.splitlines() if line.strip()]
    return [json.loads(line) if log_format == "json" else logfmt(line) for line in lines]


def the_line(lines: list[dict[str, Any]], msg: str, **fields: object) -> dict[str, Any]:
    found = [
        line
        for line in lines
        if line["msg"] == msg and all(str(line.get(k)) == str(v) for k, v in fields.items())
    ]
    assert found, f"no line {msg!r} with {fields}:\n" + "\n".join(map(str, lines))
    return found[0]


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_every_line_of_a_run_parses_with_its_fields_and_levels_that_mean_something(
    tmp_path: Path, log_format: str
) -> None:
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        env = bot_environment(
            api, tmp_path / "data", sites=[site], VIDRELAY_LOG_FORMAT=log_format, VIDRELAY_YTDLP_TIMEOUT="60"
        )
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            user = new_user()
            good = site.url("/clips/short.mp4")
            api.send_text(Chat.private(user), user, good)
            await api.wait_for(lambda: api.videos(user.id), timeout=WAIT_SECONDS)
            gone = site.url("/logs/no-such-video")  # the site answers 404: the user's bad link
            api.send_text(Chat.private(user), user, gone)
            await until_logged(bot, "job dead-lettered")
            assert await bot.terminate() == 0
        finally:
            await bot.close()
    lines = parsed(bot.log(), log_format)

    for line in lines:
        assert RFC3339_MS.fullmatch(line["ts"]), line
        assert line["level"] in {"debug", "info", "warning", "error", "critical"}, line
        assert not re.search(r"\b[A-Z]\w+\(\w+=", line["msg"]), f"a Python repr in {line}"

    assert the_line(lines, "boot: 0 job(s) gave up at this boot")["level"] == "info"
    misspelt = [line for line in lines if line["msg"].startswith("VIDRELAY_YTDLP_TIMEOUT is not a")]
    assert len(misspelt) == 1  # once, at start
    assert misspelt[0]["level"] == "warning"
    assert misspelt[0]["msg"].endswith("did you mean VIDRELAY_YTDLP_TIMEOUT_SECONDS?")
    done = the_line(lines, "job done", job_name="download_video", url=good)
    assert done["site"] == "127.0.0.1"
    assert (str(done["chat_id"]), str(done["attempt"])) == (str(user.id), "1")
    dead = the_line(lines, "job dead-lettered", url=gone)
    assert dead["level"] == "warning"  # the user's link, not the operator's problem
    assert "404" in dead["error"]
    assert dead["site"] == "127.0.0.1"
    sweep = the_line(lines, "blob sweep")
    assert str(sweep["orphans_removed"]) == "0"
    assert the_line(lines, "signal received: stopping polling")["level"] == "info"
    operator_lines = [line for line in lines if line["level"] in {"error", "critical"}]
    assert operator_lines == [], "nothing here needed an operator"
