"""The contract of vidrelay: Protocols named by role, and the frozen values that cross them.

This package imports nothing of the project. The core decides over these ports; adapters
implement them; entrypoints wire the two together.

One error style per kind of outcome, for every port:

- An expected outcome is a value. A download or scrape that fails returns
  `Failure(ToolFailure)` (`Downloader`); a probe that cannot read the file, a version that
  cannot be told, a claim that finds no job, a confirmation that lost its race or a row that is
  gone return None or an enum (`MediaProber`, `JobStore.claim`, `PendingStore.adopt`/`cancel`);
  an update that failed is an `UpdateOutcome` with its error.
- An infrastructure failure raises the port's own error type, never a driver's: `StoreError` for
  every store port (the database is locked, the disk is full, the connection is gone),
  `BlobFilesError` for the blob folder, `MessengerError` for the chat service (it refused the call
  or could not be reached; the core classifies it, `core.telegram_errors`).
- A bug is a plain exception (a wrong argument, a broken invariant) and is never caught to be
  turned into one of the above.
- `ShutdownAbort` is neither: work stopped because the process is going away.
"""
