"""A worker process that died is found from the database's side, within seconds: its sessions are
gone. Its leases stay the fallback for a process the server still sees but that does no work (cut
off by a silent network, paused).

Every connection of a store carries the store's session name (its application_name), and each
worker id claims under it (`vidrelay_holders`). Before claims, at most every `PROBE_SECONDS`, a
store runs `vidrelay_take_back_absent` (queue_functions.py): the rows of a worker none of whose
session's connections has been seen for `GRACE_SECONDS` come back, as if its leases had ended.
The grace outlasts the gap of a live process between a lost connection and its next one (its
listener reconnects within a second of the server, see notices.py); idle workers come back to
claim every probe while another process holds rows (jobs.py, next_wakeup), so a SIGKILL frees
its rows in about PROBE_SECONDS + GRACE_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Final

from adapters.postgres.database import Database
from ports.errors import StoreError

log = logging.getLogger("vidrelay.postgres")

PROBE_SECONDS: Final = 1.0
GRACE_SECONDS: Final = 3.0
# A registration lost meanwhile (taken for gone while every connection was being re-made) comes
# back with the next probe: the process that registers is, by then, seen again.
_REGISTER = """
    INSERT INTO vidrelay_holders (worker, session) SELECT unnest($1::text[]), $2
    ON CONFLICT (worker) DO UPDATE SET session = EXCLUDED.session, missing_since = NULL
"""
_TAKE_BACK_ABSENT = "SELECT vidrelay_take_back_absent($1, $2)"


class Presence:
    def __init__(self, session: str, grace_seconds: float = GRACE_SECONDS) -> None:
        self.session = session
        """This store's name on every one of its connections."""
        self._grace = grace_seconds
        self._registered: set[str] = set()
        self._probed_at = -PROBE_SECONDS

    async def before_claims(self, db: Database, workers: Iterable[str]) -> None:
        """Register workers claiming for the first time; take back the rows of gone ones if a
        probe is due. A failure is logged: the claims that follow hear of the store themselves."""
        try:
            new = [worker for worker in workers if worker not in self._registered]
            if new:
                await db.execute(_REGISTER, new, self.session)
                self._registered.update(new)
            now = asyncio.get_running_loop().time()
            if now - self._probed_at >= PROBE_SECONDS:
                self._probed_at = now
                await db.execute(_REGISTER, sorted(self._registered), self.session)
                if taken := await db.fetchval(_TAKE_BACK_ABSENT, self.session, self._grace):
                    log.warning("postgres: %d job(s) came back from a worker whose sessions ended", taken)
        except StoreError as error:
            log.warning("postgres: could not look for gone workers", exc_info=error)
