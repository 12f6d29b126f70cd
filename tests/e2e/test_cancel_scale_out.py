"""/cancel on the split deployment (tests/e2e/test_scale_out.py): the ingest takes the /cancel,
a worker process runs the download; the mark and its NOTIFY reach that worker, which stops the
download within the same bound as in one process."""

from __future__ import annotations

import pytest

from testkit.telegram import Chat
from tests.e2e.conftest import new_user
from tests.e2e.test_cancel import cancel_a_running_download, failed_jobs_listing, quick_clip_on
from tests.e2e.test_scale_out import Deployment, deployment

pytestmark = pytest.mark.slow
__all__ = ["deployment"]  # the fixture, used by name


async def test_a_download_running_on_a_worker_process_is_cancelled_from_the_ingest(
    deployment: Deployment,
) -> None:
    api, site = deployment.api, deployment.site
    user = new_user()

    message_id = await cancel_a_running_download(api, site, user, "/scale/cancelled.mp4")

    log = await api.wait_for(
        lambda: next(
            (
                m
                for m in api.messages(user.id)
                if m.reply_to == message_id and m.video is None and (m.text or "").endswith("🚫 Cancelled")
            ),
            None,
        ),
        timeout=30,
    )
    assert log.reply_to == message_id
    assert api.videos(user.id) == []
    assert "/scale/cancelled.mp4" not in await failed_jobs_listing(deployment.ingest)
    next_id = api.send_text(Chat.private(user), user, quick_clip_on(site, "/scale/after-cancel.mp4"))
    await api.wait_for(lambda: any(v.reply_to == next_id for v in api.videos(user.id)), timeout=30)
    assert all(w.running for w in deployment.workers)
