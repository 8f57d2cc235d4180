"""Credential-shaped strings never reach a file, a log line or an error message.

:func:`redact_secrets` replaces API keys of the common shapes (``sk-...``, ``sk_live_...``, ``hf_...``,
``ghp_...``, ``xoxb-...``, ``AKIA...``), ``Bearer`` tokens and ``api_key=... / "authorization": "..."`` values,
whatever their case, with ``***``; a known secret is replaced wherever it appears, in any case.

>>> redact_secrets('{"echo": "Bearer SK-abcdefghijklmnop1234"}')
'{"echo": "Bearer ***"}'
>>> redact_secrets("api_key=hunter2hunter2 and more")
'api_key=*** and more'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["redact_secrets", "redact_tree"]

_PATTERNS = [
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"),
    re.compile(r"(?i)\b(sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)\b(hf|ghp|gho|ghs|github_pat|xox[abpr])[-_][A-Za-z0-9_-]{8,}"),
    re.compile(r"\bAKIA[0-9A-Z]{12,}"),
    re.compile(
        r"(?i)(\"?(?:api[-_]?key|access[-_]?token|authorization|x-api-key|secret|password)\"?\s*[:=]\s*\"?)"
        r"(?!\*\*\*)[^\s\",}]{4,}"
    ),
]


def _sub(match: re.Match[str]) -> str:
    groups = match.groups()
    if match.re is _PATTERNS[0]:
        return f"{groups[0]} ***"
    if match.re is _PATTERNS[-1]:
        return f"{groups[0]}***"
    return "***"


def redact_secrets(text: str, known: Iterable[str | None] = ()) -> str:
    """`text` with every known secret (any case) and every credential-shaped string replaced by ``***``."""
    for secret in known:
        if secret and len(secret) >= 4:
            text = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE)
    for pattern in _PATTERNS:
        text = pattern.sub(_sub, text)
    return text


def redact_tree(obj: Any, known: Iterable[str | None] = ()) -> Any:
    """:func:`redact_secrets` applied to every string inside a JSON-like value."""
    known = tuple(known)
    if isinstance(obj, str):
        return redact_secrets(obj, known)
    if isinstance(obj, dict):
        return {redact_secrets(str(k), known): redact_tree(v, known) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_tree(v, known) for v in obj]
    return obj
