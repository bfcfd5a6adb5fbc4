"""Who may decide approvals: with the setting `approver_token` on, a person, not the agent.

An agent reaches steadyhand over MCP or over HTTP with the API token; the person who
approves holds what the agent does not:
- over HTTP, the approver token (`approver.token` in the state dir, 0600, apart from
  `http.token`) in the `X-Steadyhand-Approver` header;
- over the Unix socket (the CLI), being the socket's owner: the daemon checks the peer's
  uid (SO_PEERCRED);
- over MCP, never: the MCP front is the agent's.

Limit, said plainly: an agent with a shell as the same user can read the token file and
run the CLI; the token separates agents that reach steadyhand only through MCP or HTTP.
"""

from __future__ import annotations

import hmac
import os
import socket
import struct
from pathlib import Path

from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError

# The commands that are a person's decision (the table's `decides`): an approval, and the
# end of a takeover.
DECIDING = frozenset(name for name, c in COMMANDS.items() if c.decides)
HEADER = "x-steadyhand-approver"
HOW = (
    "a person approves with the CLI (`steadyhand approve ID`) as the daemon's user, or over "
    "HTTP with the approver token (header X-Steadyhand-Approver, file approver.token in the "
    "state dir)"
)


def token_path(settings: Settings) -> Path:
    return settings.state_dir / "approver.token"


def guarded(settings: Settings, command: str) -> bool:
    """Whether `command` needs the approver under these settings."""
    return settings.approver_token and command in DECIDING


def check_http(settings: Settings, command: str, given: str | None, expected: str) -> None:
    """An HTTP call of approve/deny must carry the approver token."""
    if not guarded(settings, command):
        return
    if not given or not hmac.compare_digest(given.strip(), expected):
        raise refused(f"{command} over HTTP needs the approver token", HOW)


def check_mcp(settings: Settings, command: str) -> None:
    if guarded(settings, command):
        raise refused(f"{command} is a person's decision, not an MCP tool's", HOW)


def check_peer(settings: Settings, command: str, sock: socket.socket | None) -> None:
    """A socket call of approve/deny must come from the daemon's own user (or root)."""
    if not guarded(settings, command):
        return
    uid = peer_uid(sock)
    if uid is None or uid not in (os.geteuid(), 0):
        raise refused(f"{command} on the socket needs the daemon's own user (peer uid {uid})", HOW)


def peer_uid(sock: socket.socket | None) -> int | None:
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def refused(message: str, hint: str) -> SteadyhandError:
    return SteadyhandError(ErrorCode.POLICY_DENIED, message, hint, {"rule": "approver"})
