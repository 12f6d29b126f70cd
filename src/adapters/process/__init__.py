"""One way to start a child process, for every tool the adapters run (yt-dlp, pip, ffprobe, ffmpeg).

Each child runs in its own session with stdin on /dev/null and stdout/stderr on pipes, under a
deadline. A stop — the deadline, a cancellation, a shutdown — signals the whole process group:
SIGTERM, a grace, then SIGKILL, and waits until the group's leader is reaped, so a child never
outlives the call that started it.
"""

from adapters.process.child import Child, Spawner
from adapters.process.exit import Exit
from adapters.process.runner import Captured, ChildProcesses
from adapters.process.tail import STDERR_TAIL_BYTES, TailBuffer

__all__ = ["STDERR_TAIL_BYTES", "Captured", "Child", "ChildProcesses", "Exit", "Spawner", "TailBuffer"]
