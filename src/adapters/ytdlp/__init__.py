"""yt-dlp as a child process: scrape, download, progress, and which installed yt-dlp runs."""

from adapters.ytdlp.downloader import YtDlpDownloader
from adapters.ytdlp.locator import Locator, YtDlpCommand, YtDlpLocator

__all__ = ["Locator", "YtDlpCommand", "YtDlpDownloader", "YtDlpLocator"]
