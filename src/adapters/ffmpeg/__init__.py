"""ffmpeg tools as child processes: ffprobe for what a downloaded file holds."""

from adapters.ffmpeg.prober import FfprobeProber

__all__ = ["FfprobeProber"]
