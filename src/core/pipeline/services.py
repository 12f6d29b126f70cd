"""What the pipeline's jobs are built from: the services and ports they share, and the limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.chat.log_views import LogViews
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.media.thumbnails import Thumbnails
from core.pipeline.turns import VideoTurns
from core.pipeline.url_guard import UrlGuard
from core.telemetry import Unobserved
from core.trust.buttons import SignedButtons
from ports.audio import AudioDownloader
from ports.caches import HandledUrls
from ports.clock import Clock
from ports.formats import FormatChoice
from ports.media import Downloader
from ports.messenger import Messenger
from ports.pending import PendingStore
from ports.telemetry import DeliveryEvents


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    upload_limit_bytes: int = 50 * 1024 * 1024
    confirm_longer_than_seconds: float = 1200.0
    ytdlp_timeout_seconds: float = 300.0
    max_attempts: int = 3
    max_download_bytes: int = 0
    """Nothing announced bigger is fetched (the downloader also stops what grows past it); 0: no cap."""


@dataclass(frozen=True, slots=True)
class Services:
    info: InfoService
    blobs: BlobService
    downloader: Downloader
    messenger: Messenger
    pending: PendingStore
    handled: HandledUrls
    guard: UrlGuard
    clock: Clock
    new_id: Callable[[], str]
    """Ids for parked confirmations."""
    logs: LogViews
    """The log messages of the jobs this process runs or has accepted."""
    turns: VideoTurns
    buttons: SignedButtons
    audio: AudioDownloader
    """The sound alone, for /audio and the chats that chose it."""
    formats: FormatChoice
    """A smaller format, for the chats that chose a quality."""
    thumbnails: Thumbnails | None = None
    """A preview frame for each upload; None: Telegram makes its own where it can."""
    deliveries: DeliveryEvents = field(default_factory=Unobserved)
