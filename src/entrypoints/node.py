"""Names this process gives itself on a shared store.

A worker's blob folder is its own: its name (the node) is kept in the data folder, so a restart
finds its bytes again while another worker's folder is another node. A worker process's id is
new at every start: a restarted process must not pass for its dead predecessor, whose rows the
others take back only once every lease of that id has ended.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

_NODE_FILE = "node-id"


def node_name(data_dir: Path) -> str:
    """The data folder's node name, made (once, atomically) on first use."""
    path = data_dir / _NODE_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    candidate = f"{socket.gethostname()}-{uuid.uuid4().hex[:12]}"
    staged = data_dir / f".{_NODE_FILE}.{os.getpid()}"
    staged.write_text(candidate + "\n")
    try:
        os.link(staged, path)  # fails if a neighbour created it first: then theirs wins
    except FileExistsError:
        pass
    finally:
        staged.unlink()
    return path.read_text().strip()


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
