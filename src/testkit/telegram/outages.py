"""Telegram going down, as a bot meets it: from the first call of some method on, for a while,
every call is answered 502 with nginx's HTML page (what api.telegram.org's front answers when
the Bot API behind it is gone), or no connection is accepted at all."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

NGINX_502 = """<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.18.0</center>
</body>
</html>
"""


class OutageKind(enum.Enum):
    BAD_GATEWAY = "502 with nginx's HTML page"
    REFUSED = "connections refused"


@dataclass(slots=True)
class Outage:
    kind: OutageKind
    seconds: float
    from_method: str
    """The outage begins with the first call of this method (that call included)."""
    began: float | None = None
    """time.monotonic() of its first call; None until then."""

    def hits(self, method: str, now: float) -> bool:
        """Whether a call of `method` arriving at `now` meets the outage (which it may begin)."""
        if self.began is None and method.lower() == self.from_method.lower():
            self.began = now
        return self.began is not None and now - self.began < self.seconds

    @property
    def over(self) -> bool:
        return self.began is not None and time.monotonic() - self.began >= self.seconds
