"""Who may decide approvals with approver_token on (fronts/approver.py)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.approver import check_http, check_mcp, check_peer, peer_uid


def settings(tmp_path: Path, on: bool) -> Settings:
    return Settings(state_dir=tmp_path / "state", approver_token=on)


def test_off_by_default_nothing_is_checked(tmp_path: Path) -> None:
    off = settings(tmp_path, False)
    check_http(off, "approve", None, "secret")
    check_mcp(off, "approve")


def test_on_http_needs_the_token_and_mcp_never_decides(tmp_path: Path) -> None:
    on = settings(tmp_path, True)
    check_http(on, "approve", "secret", "secret")
    check_http(on, "click", None, "secret")  # only deciding commands
    for given in (None, "", "wrong"):
        with pytest.raises(SteadyhandError) as refused:
            check_http(on, "deny", given, "secret")
        assert refused.value.code == "policy_denied" and "approver token" in refused.value.message
    with pytest.raises(SteadyhandError):
        check_mcp(on, "approve")


def test_the_socket_peer_is_the_daemons_own_user(tmp_path: Path) -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_uid(left) == os.geteuid()
        check_peer(settings(tmp_path, True), "approve", left)
