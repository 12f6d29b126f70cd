"""Error types that adapters raise so the core never sees a driver's exception."""

from __future__ import annotations


class StoreError(Exception):
    """A store could not do what was asked (I/O, lock timeout, corrupt row, lost connection)."""


class ShutdownAbort(Exception):
    """Work was stopped because the process is shutting down — not a failure of the job."""


class BlobFilesError(Exception):
    """The blob folder could not be read or written."""


class StoreRefused(StoreError):
    """The store's data is not ours to touch (not a database, another program's, a newer schema):
    no retry can help, and nothing was changed."""


class StoreDamaged(StoreRefused):
    """The store's data is damaged (a corrupt page of an SQLite file): every call may fail the
    same way, so nothing retries; the process stops and the operator restores a backup."""
