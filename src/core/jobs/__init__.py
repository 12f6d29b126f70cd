"""The job engine: durable jobs claimed and run by a pool of workers, whatever the store or the
handlers do (the life of one job, as a pure state machine, is `core.lifecycle`).

- engine.py       `Engine`: builds the pieces below and is what the rest of vidrelay holds
- config.py       `EngineConfig`: the deployment's knobs and the reliability constants
- registry.py     `JobRegistry`, `JobType`: the named jobs, each registered once
- context.py      `JobContext`: what a running attempt's handler is given
- hooks.py        what a job type's hooks hear: a retry, a death, a cancel by its user
- outcome.py      what an attempt comes to: done, deferred or failed
- submitter.py    `JobSubmitter`: the narrow port a job enqueues other jobs through
- producing.py    `Producer`: enqueueing a job with its attempt budget; the periodic ticks
- boot.py         once at start: a dead process's rows taken back, spent jobs buried
- pool.py         `WorkerPool`: the workers, and whether they are all there or stuck
- claims.py       this process's claims: the next job for a free worker, when to look again
- worker.py       `Worker`: one claim loop (claim, run, settle, again)
- running.py      `Attempts`: one claimed job from its claim to its settling
- attempt.py      `Deadlines`: an attempt's handler under a hard deadline
- settling.py     `Settler`: the lifecycle's effect written through the store until it lands
- in_flight.py    `InFlight`: the jobs this process holds, where an attempt is stopped from outside
- heartbeat.py    one heartbeat renewing every held lease; the store's write probe
- lease_watch.py  an attempt whose lease could not be renewed in time stops
- fence.py        an attempt speaks to Telegram only while it surely holds its lease
- breaker.py      per-site circuit breakers: a site that keeps failing waits
- crew.py         `Crew`: the tasks of a running engine, started and stopped in a written order
- supervision.py  `Supervisor`: background loops that are started again when they die
- halt.py         `Halt`: the engine stops by itself on a damaged store
- store_health.py `StoreHealth`: whether the store takes writes (the latest write's outcome)
- health.py       `EngineHealth`: what /healthz asks of the engine
- backoff.py, signals.py, tasks.py, fields.py   waits between tries, wake-ups, awaiting
                  tasks without leaking them, the fields of every job log line
"""
