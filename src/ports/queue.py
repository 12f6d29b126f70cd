"""The workers' queue: durable rows claimed under fenced, renewed leases.

The contract every store keeps (tests/contract/test_job_queue.py checks it against each store):

Fair order. Claims go round-robin across requesters (`NewJob.requester`: the chat a link came
from), first-in, first-out within one requester, so one heavy user never makes everyone else wait
behind their backlog. It is a fair-queuing virtual time: at enqueue a row gets a `turn`,
    turn = max(the requester's highest queued turn + 1, the current turn),
where the current turn is the highest turn among held rows (what runs now), or, with none held,
the lowest turn among free rows (0 on an empty queue). A row without a requester (periodic and
maintenance work) takes the current turn: it keeps its own place, like a newcomer. Claims take
the lowest (turn, id) first. So a newcomer's first row runs after the rows of the current round
and before anyone's next; a heavy requester's rows are spread one per round. A row keeps its turn
for life: a retry due again, or a suspect, goes back to its old place, ahead of younger turns.
A quick row (`NewJob.quick`: it only sends again what the chat service has) takes turn -1,
before the whole fair order (every other turn is 0 or more), first-in, first-out among quick
rows; `claim(quick_only=True)` takes only quick rows, never a suspect, so a worker kept for them
(the quick lane) answers a cache hit at once however many downloads are queued or running.
Every step is an index lookup (the requester's highest turn, the held rows, the lowest free turn),
never a scan of the queue. Two enqueues racing on a store that many processes share may give two
rows of one requester the same turn; id order still keeps them first-in, first-out.

Claims. `claim` is one atomic step: it takes the first claimable row in the fair order, spends one
attempt *before* the work runs (write-ahead), holds the row for `worker_id` until
`now + lease_seconds`, and gives the claim a fencing token the row never carried before. A row is
claimable when nobody holds it, `available_at <= now` and its key is not paused. `worker_id` names
one worker process; all its worker tasks share it.

Fencing. Every finishing write (`complete`, `retry_later`, `release`, `dead_letter`,
`update_payload`) names the claim's `Lease` and acts only while that claim still holds the row;
otherwise it changes nothing and says so (False, or None). So a stale worker cannot touch a row
another claim took over, and retrying a finishing write after an error is safe.

Leases. `renew` is the heartbeat: it extends every given lease its worker still holds and returns
the ones it lost. A lease past its end still holds (a slow heartbeat is late, not dead) until the
row is taken over. A row the worker holds, that its heartbeat does not name, and whose lease has
ended, was handed out by a claim whose answer never arrived (a connection lost after the
commit): `renew` lets it go with its attempt refunded, since nothing ran it.

Dead holders and crash attribution. A holder whose every lease has ended is gone: its process
died or stalled. The next claim by any other worker first takes back all of that holder's rows
at once. Each becomes claimable and *suspect*. When the holder held two or more rows, none of them
can be blamed for the death and each gets its attempt back; a row it held alone keeps the spent
attempt (it may be what killed the process), so a poison row still runs out of attempts. A worker
never takes back its own rows: it may still be running them. A store that many processes share
may learn of a death sooner, from its own side (every session of the holder's process ended and
stayed gone for a short grace): its rows then come back at once by the same rule, while a holder
the store still sees keeps its rows until its leases end.

Clocks. Two clocks meet here, each deciding one thing. Whose a row is — every lease's end, and
whether it has ended — is the store's clock: `claim`, `claim_exhausted` and `renew` hold a row for
`lease_seconds` from the store's own now, and every judgement of an ended lease (a dead holder,
an orphan) reads that clock, never a caller's `now`. A store that machines share uses the
database server's clock; one store on one host uses that host's. So a worker whose clock runs
ahead or behind can neither take a live lease nor keep an expired one, and `Job.lease_until` is
store time. When a row is due is the callers' clock: `available_at` is written from a caller's
reading (enqueue, retry_later, release) and compared with the claiming caller's `now`; tests
drive it through the Clock port, and a backoff survives a restart. A caller whose clock is off
by s seconds takes a due-later row s seconds early or late — never twice, never lost. The memory
store, inside one process, has no clock but that process's: it takes the callers' `now` for both.
`next_wakeup` answers on the caller's clock: a lease end is moved by the difference between the
caller's `now` and the store's.

Suspects run alone. `claim` hands a suspect only to a worker that holds nothing else, and hands
nothing to a worker that holds a suspect. When the first claimable row is a suspect and the worker
holds rows, it gets nothing: it drains first, so a suspect is never passed over. An attempt that
ends normally (`retry_later`) clears the mark; `release` keeps it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from ports.jobs import FailedJob, Guard, Job, Lease, NewJob
from ports.json import Payload


class JobQueue(Protocol):
    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        """Insert `job`; its id, or None when the guard refused (then nothing is written).
        With a guard, the guard's mark and the job commit together or not at all."""
        ...

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        """Take back dead holders' rows, then claim the first claimable row in the fair order;
        `quick_only`: the first quick row, if any (see the contract's quick lane)."""
        ...

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        """Claim every claimable row whose attempts are all spent, to bury them under a lease.
        Write-ahead like `claim`, so each comes back with attempts past max_attempts."""
        ...

    async def recover(self, worker_id: str) -> int:
        """Boot of a store only this process uses (an instance lock says so): every other holder
        is dead, whatever its leases say; take back all their rows now. How many came back."""
        ...

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        """Extend the given leases to `now + lease_seconds`; the ones no longer held (lost)."""
        ...

    async def complete(self, lease: Lease) -> bool:
        """The work is fully done: delete the row. False when the lease no longer holds."""
        ...

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        """Let the row go until `available_at`; the attempt stays spent, the suspect mark goes."""
        ...

    async def release(self, lease: Lease, available_at: float) -> bool:
        """Let the row go and give the attempt back: the job did not get to fail (shutdown)."""
        ...

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        """Persist what an attempt learned (e.g. its log message) for the attempts after it."""
        ...

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        """Move the row to the failed table, atomically; None when the lease no longer holds.
        The failed row counts the attempts that ran: never more than max_attempts (the claim
        that only buries an exhausted row ran nothing)."""
        ...

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        """When a row may next become claimable for `worker_id`: the earliest `available_at` of a
        free row, or the earliest lease end of another holder; None if nothing is queued."""
        ...
