"""ffmpeg tools as child processes: ffprobe for what a downloaded file holds, ffmpeg to convert it."""

from adapters.ffmpeg.prober import FfprobeProber
from adapters.ffmpeg.transcoder import FfmpegTranscoder

__all__ = ["FfmpegTranscoder", "FfprobeProber"]
