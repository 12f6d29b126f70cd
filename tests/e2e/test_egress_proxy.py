"""VIDRELAY_PROXY with the real bot: the video comes through the operator's proxy, behind the
guard, which has the proxy connect to the address it checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.bot_process import BotProcess, bot_environment
from testkit.connect_proxy import ConnectProxy
from testkit.telegram import Chat, FakeBotApi
from testkit.video_site import VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, sha256_of

pytestmark = pytest.mark.slow


async def test_a_link_is_fetched_through_the_operators_proxy_and_the_secret_stays_out_of_sight(
    tmp_path: Path,
) -> None:
    async with (
        VideoServer(CLIPS_DIR) as site,
        FakeBotApi() as api,
        ConnectProxy(user="bot", password="s3cret-proxy-pw") as operators,
    ):
        env = bot_environment(
            api, tmp_path / "data", sites=[site], VIDRELAY_PROXY=operators.url("bot:s3cret-proxy-pw")
        )
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            user = new_user()
            asked = api.send_text(Chat.private(user), user, site.url("/clips/short.mp4"))
            video = await api.wait_for(
                lambda: next((v for v in api.videos(user.id) if v.reply_to == asked), None),
                timeout=WAIT_SECONDS,
            )
        finally:
            await bot.close()
    assert video.sha256 == sha256_of(site.clip("short"))
    assert operators.targets
    assert set(operators.targets) == {f"127.0.0.1:{site.port}"}
    assert operators.refused == 0
    assert "s3cret-proxy-pw" not in bot.log()
