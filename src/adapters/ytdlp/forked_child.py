"""A run forked by a yt-dlp fork server: the `adapters.process.Child` that `ChildProcesses` drives.

The child is the server's to reap: the bot learns its exit status over the run's channel, and
when the server dies first it kills the run's group itself and waits (by pidfd) until it is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable

from adapters.process import Child
from adapters.ytdlp import forkserver_wire as wire

log = logging.getLogger("adapters.ytdlp.forkserver")

_LOST_KILL_WAIT_SECONDS = 5.0


class ForkedChild(Child):
    def __init__(
        self,
        pid: int,
        channel: socket.socket,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
        transports: list[asyncio.BaseTransport],
    ) -> None:
        self._pid = pid
        self._channel = channel
        self._stdout = stdout
        self._stderr = stderr
        self._transports = transports
        self._pidfd = _pidfd_open(pid)
        self._status: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read_status())

    @classmethod
    async def attach(cls, pid: int, channel: socket.socket, out_r: int, err_r: int) -> ForkedChild:
        loop = asyncio.get_running_loop()
        readers: list[asyncio.StreamReader] = []
        transports: list[asyncio.BaseTransport] = []
        try:
            for fd in (out_r, err_r):
                reader = asyncio.StreamReader(loop=loop)
                protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
                pipe = os.fdopen(fd, "rb", buffering=0)
                transport, _ = await loop.connect_read_pipe(_returning(protocol), pipe)
                readers.append(reader)
                transports.append(transport)
        except BaseException:
            for opened in transports:
                opened.close()
            for fd in (out_r, err_r)[len(transports) :]:
                with contextlib.suppress(OSError):
                    os.close(fd)
            channel.close()  # the server kills the child
            raise
        return cls(pid, channel, readers[0], readers[1], transports)

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def stdout(self) -> asyncio.StreamReader:
        return self._stdout

    @property
    def stderr(self) -> asyncio.StreamReader:
        return self._stderr

    async def wait(self) -> int | None:
        """The returncode as asyncio gives it (negative: the signal); None if the server died first."""
        return await asyncio.shield(self._status)

    def close(self) -> None:
        for transport in self._transports:
            transport.close()
        if self._reader.done():
            self._release()
        else:
            # Not before the reader has let go of them: the loop drops a reader by fd number, and a
            # number closed now may already belong to the next run when it does.
            self._reader.add_done_callback(lambda _: self._release())
            self._reader.cancel()

    def _release(self) -> None:
        self._channel.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    async def _read_status(self) -> None:
        try:
            message = wire.decode(await asyncio.get_running_loop().sock_recv(self._channel, wire.REPLY_BYTES))
        except OSError:
            message = None
        status = message.get("status") if message is not None else None
        if isinstance(status, int):
            self._status.set_result(os.waitstatus_to_exitcode(status))
            return
        # The server died: nobody can reap this child for us or tell how it ended, and it must
        # not go on unsupervised.
        log.warning("yt-dlp fork server died during run %s; killing that run", self._pid)
        wire.kill_run(self._pid)
        await self._gone(_LOST_KILL_WAIT_SECONDS)
        self._status.set_result(None)

    async def _gone(self, timeout: float) -> None:
        """Until the child has exited (it is not ours to reap): its pidfd turns readable."""
        if self._pidfd is None:
            for _ in range(int(timeout / 0.05)):
                if not _exists(self._pid):
                    return
                await asyncio.sleep(0.05)
            return
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not exited.done():
                exited.set_result(None)

        loop.add_reader(self._pidfd, readable)
        try:
            await asyncio.wait_for(exited, timeout)
        except TimeoutError:
            pass
        finally:
            loop.remove_reader(self._pidfd)


def _returning(protocol: asyncio.StreamReaderProtocol) -> Callable[[], asyncio.StreamReaderProtocol]:
    return lambda: protocol


def _pidfd_open(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # an old kernel, or it is gone already


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
