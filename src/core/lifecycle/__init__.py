"""The life of a job as a pure state machine: (state, event) → (state, effect).

    queued ──claim──▶ running ──succeed──────────────────────────────▶ done
      ▲    └─(attempts spent)─▶ dead  ├─fail (transient, attempts left)─▶ queued, later
      │                               ├─fail (permanent, or the last attempt)─▶ dead
      └────────release (shutdown)─────┘

The engine builds the state from the row it claimed, feeds in what happened, and applies the
effect through the store. Attempts are written ahead: the claim spends one before the work
starts, so a job that kills its process (no event ever arrives) still runs out of attempts, and
the next claim of a job whose attempts are spent buries it without running it. Which death
charges which job is the store's rule (ports.queue: a worker that dies with several jobs in
flight is charged for none). A periodic job is never dead-lettered: when it fails or is spent it
is simply done, and its next tick runs it afresh.

- state.py         `JobState`: a job's phase and attempts
- events.py        the inputs: claimed, rejected, succeeded, failed, released
- effects.py       the outputs: run, complete, schedule a retry, release, dead-letter, nothing
- step.py          `step`: the transition itself, and the rule after a failure
- retry_policy.py  `RetryPolicy`: how long a failed job waits (exponential, jittered, capped)
"""
