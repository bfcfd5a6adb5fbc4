"""`secrets`: the names of the secrets the daemon can type, never their values.

How secrets are defined, typed and kept out of everything shown: steadyhand/vault.py.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command
from steadyhand.vault import MIN_MASK, Secret


class SecretInfo(Result):
    name: str = Field(description="type it with `type REF --secret NAME` or {{secret:NAME}}")
    source: str = Field(
        description="file, env, or file+env (the environment's value, the file's domains)"
    )
    domains: list[str] = Field(
        default_factory=list,
        description="typed only into pages of these hosts and their subdomains (none: any)",
    )
    masked: bool = Field(
        True,
        description=f"replies show it as {{{{secret:NAME}}}} (values under {MIN_MASK} "
        "characters are typed, not masked)",
    )


class SecretsResult(Result):
    secrets: list[SecretInfo]
    file: str = Field(description="the secrets file (setting secrets_file)")
    file_exists: bool
    env_prefix: str = Field(description="daemon environment variables that define secrets")


def _info(secret: Secret) -> SecretInfo:
    return SecretInfo(
        name=secret.name,
        source=secret.source,
        domains=list(secret.domains),
        masked=len(secret.value) >= MIN_MASK,
    )


@command("secrets", touches_page=False, reads_only=True, timeout="short", needs_session=False)
async def secrets(call: Call, params: Params) -> SecretsResult:
    """List the secrets the daemon types by name: names, sources and domains, never values."""
    vault = call.runtime.secrets
    known = await asyncio.to_thread(vault.secrets)
    return SecretsResult(
        secrets=[_info(s) for s in known],
        file=str(vault.path),
        file_exists=vault.path.is_file(),
        env_prefix=vault.prefix,
    )
