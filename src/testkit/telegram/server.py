"""The fake's HTTP face: `{base_url}/bot{token}/{method}` answered the way api.telegram.org answers."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from testkit.loopback import LoopbackServer
from testkit.telegram.bodies import Upload, read_params
from testkit.telegram.call import Call, Method
from testkit.telegram.changes import Changes
from testkit.telegram.errors import ApiError, not_found, unauthorized
from testkit.telegram.flood import FloodLimits
from testkit.telegram.limits import CLOUD_UPLOAD_LIMIT, LOCAL_UPLOAD_LIMIT
from testkit.telegram.methods import method_table
from testkit.telegram.methods.albums import album_size
from testkit.telegram.outages import NGINX_502, Outage, OutageKind
from testkit.telegram.params import Params
from testkit.telegram.people import User
from testkit.telegram.records import CallRecord
from testkit.telegram.state import TelegramState

DEFAULT_TOKEN = "123456789:AAFakeTokenForTheVidrelayTestsOnly0000"  # noqa: S105 - a fake's token


class BotApiServer(LoopbackServer):
    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "vidrelay_test_bot",
        bot_name: str = "vidrelay",
        reads_all_group_messages: bool = False,
        local_mode: bool = False,
        upload_limit: int | None = None,
        keep_uploads: Path | None = None,
        flood_limits: FloodLimits | None = None,
    ) -> None:
        """`local_mode`: a local Bot API server, which also takes videos by path, up to 2 GB.
        `keep_uploads`: a folder where every uploaded file is kept, named by its sha256, for the
        tests to look inside (`uploaded_file`). `flood_limits`: answer 429 beyond Telegram's flood
        limits (off by default; see `flood`). `reads_all_group_messages`: what getMe says of the
        bot's privacy mode (off: Telegram's default for a new bot)."""
        super().__init__()
        self.token = token
        bot = User(int(token.split(":", 1)[0]), bot_name, username=bot_username, is_bot=True)
        limit = upload_limit or (LOCAL_UPLOAD_LIMIT if local_mode else CLOUD_UPLOAD_LIMIT)
        self._state = TelegramState(
            bot,
            reads_all_group_messages=reads_all_group_messages,
            local_mode=local_mode,
            upload_limit=limit,
            changes=Changes(),
            stopping=self._stopping,
            flood_limits=flood_limits,
        )
        self._methods = method_table()
        self._refusing = False
        self._background: set[asyncio.Future[None]] = set()
        self._keep = keep_uploads
        if keep_uploads is not None:
            keep_uploads.mkdir(parents=True, exist_ok=True)

    @property
    def bot(self) -> User:
        return self._state.bot

    @property
    def local_mode(self) -> bool:
        return self._state.local_mode

    @property
    def upload_limit(self) -> int:
        return self._state.upload_limit

    @property
    def webhook(self) -> dict[str, Any] | None:
        return self._state.webhook

    @property
    def base_url(self) -> str:
        """What VIDRELAY_TELEGRAM_API_URL should be: requests go to {base_url}/bot{token}/{method}."""
        return super().base_url

    def reset(self) -> None:
        """Forget every chat, message, file, update, fault, record and flood count."""
        self._state.clear()
        self._state.changes.notify()

    async def stop(self) -> None:
        for task in self._background:
            task.cancel()
        self._state.changes.notify()  # long polls waiting on the fake give up now
        await super().stop()

    def _application(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        return app

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(not_found().to_api(), status=404)

    async def _handle(self, request: web.Request) -> web.Response:
        asked = request.match_info["method"]
        name = self._methods[asked.lower()][0] if asked.lower() in self._methods else asked
        at = time.monotonic()
        client = request.headers.get("User-Agent", "")
        outage = self._state.outage
        if outage is not None and outage.hits(name, at):
            return self._down(
                outage, request, CallRecord(name, {}, at, None, {}, False, 502, "Bad Gateway", client=client)
            )
        uploads: dict[str, Upload] = {}
        raw: dict[str, Any] = {}
        chat_id: int | None = None
        call: Call | None = None
        try:
            raw, uploads = await read_params(request, self._state.upload_limit, self._keep)
            params = Params(raw)
            with contextlib.suppress(ApiError):
                chat_id = params.integer("chat_id")
            canonical, method = self._route(request.match_info["token"], name, chat_id)
            call = Call(canonical, params, uploads)
            result = await self._run(method, call, chat_id)
        except ApiError as error:
            files = call.files if call is not None else {}
            ended = time.monotonic()
            record = CallRecord(
                name,
                raw,
                at,
                chat_id,
                files,
                False,
                error.code,
                error.description,
                ended=ended,
                client=client,
            )
            self._record(record)
            return web.json_response(error.to_api(), status=error.code)
        except asyncio.CancelledError:
            files = call.files if call is not None else {}
            gone = "cancelled: the client went away"
            self._record(
                CallRecord(
                    name, raw, at, chat_id, files, False, None, gone, ended=time.monotonic(), client=client
                )
            )
            raise
        self._record(
            CallRecord(
                name, raw, at, chat_id, call.files, result=result, ended=time.monotonic(), client=client
            )
        )
        return web.json_response({"ok": True, "result": result})

    def _down(self, outage: Outage, request: web.Request, record: CallRecord) -> web.Response:
        """A call that meets an outage: nginx's page, or the connection dropped and the server gone."""
        self._record(record)
        if outage.kind is OutageKind.REFUSED:
            if not self._refusing:
                self._refusing = True
                self._background.add(asyncio.ensure_future(self._refuse_until_over(outage)))
            if request.transport is not None:
                request.transport.close()
        return web.Response(status=502, text=NGINX_502, content_type="text/html")

    async def _refuse_until_over(self, outage: Outage) -> None:
        await super().stop()  # every connection closed, no new one accepted
        assert outage.began is not None
        await asyncio.sleep(max(outage.seconds - (time.monotonic() - outage.began), 0.0))
        await self.start()  # on its old port again
        self._refusing = False

    async def _run(self, method: Method, call: Call, chat_id: int | None) -> Any:
        gate = self._state.flood
        count = album_size(call.params) if call.method == "sendMediaGroup" else 1
        admission = gate.admit(call.method, chat_id, count) if gate is not None else None
        try:
            return await method(self._state, call)
        except ApiError:
            if gate is not None and admission is not None:
                gate.give_back(admission)
            raise

    def _route(self, token: str, method: str, chat_id: int | None) -> tuple[str, Method]:
        if token != self.token:
            raise unauthorized()
        self._state.faults.raise_for(method, chat_id)
        found = self._methods.get(method.lower())
        if found is None:
            raise not_found()
        return found

    def _record(self, record: CallRecord) -> None:
        self._state.journal.calls.append(record)
        self._state.changes.notify()
