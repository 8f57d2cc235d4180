"""A client for any server speaking the OpenAI ``/chat/completions`` protocol, with the standard library only.

Works with OpenAI itself and with local servers that copy its API (vLLM, llama.cpp's server, Ollama,
LM Studio, text-generation-inference). Transient failures (HTTP 408/429/5xx, refused or dropped
connections, timeouts) are retried with exponential backoff; other failures raise :class:`LLMError` with
the status and the server's own message. The API key is sent only in the ``Authorization`` header: it never
appears in a repr, a log record or an error message.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from iclr26.checks import check_float, check_int
from iclr26.lab.llm.base import ChatRequest, Completion, LLMBackend, LLMError
from iclr26.lab.llm.redact import redact_secrets

logger = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


class _RedirectPolicy(urllib.request.HTTPRedirectHandler):
    """Redirects are errors unless allowed, and never leave the endpoint's origin (scheme, host, port): the API
    key must not be re-sent to another host, and an answer from elsewhere must not be trusted or cached."""

    def __init__(self, base_url: str, allow: bool) -> None:
        self.origin = _origin(base_url)
        self.allow = allow

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 - urllib's signature
        if not self.allow:
            raise LLMError(
                f"{req.full_url} answered a redirect (HTTP {code}) to {redact_secrets(newurl)}; redirects are refused "
                "(pass allow_redirects=True to follow same-origin ones)",
                status=code,
            )
        if _origin(newurl) != self.origin:
            raise LLMError(
                f"{req.full_url} redirected (HTTP {code}) to another origin, {redact_secrets(newurl)}; refused so "
                "that credentials are never sent there",
                status=code,
            )
        # Same origin and allowed: re-send the same POST (an API call is not turned into a GET).
        return urllib.request.Request(
            newurl, data=req.data, headers=dict(req.header_items()), method=req.get_method()
        )


_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _server_message(body: bytes) -> str:
    """The human-readable part of an error body: OpenAI's ``{"error": {"message": ...}}`` or the raw text."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text[:500]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:500]


class OpenAICompatibleBackend(LLMBackend):
    """Chat completions from an OpenAI-compatible HTTP endpoint.

    Parameters
    ----------
    base_url : str
        The API root, e.g. ``"https://api.openai.com/v1"`` or ``"http://127.0.0.1:8000/v1"``; requests go to
        ``{base_url}/chat/completions``.
    model : str
        The model name the server expects.
    api_key : str, optional
        Sent as ``Authorization: Bearer <key>``. When None, read from the environment variable
        ``api_key_env``; when that is unset too, no header is sent (typical for local servers).
    api_key_env : str or None
        The environment variable to read the key from.
    allow_redirects : bool
        Follow HTTP redirects that stay on the endpoint's origin; by default any redirect is an error. A redirect
        to another origin is always refused, so the key is never re-sent elsewhere.
    timeout : float
        Seconds to wait for each HTTP attempt.
    max_retries : int
        Extra attempts after a transient failure (so ``max_retries + 1`` attempts at most).
    backoff_s : float
        First retry delay; it doubles at each retry. A numeric ``Retry-After`` header wins, capped at 60 s.
    request_logprobs : bool
        Ask the server for per-token log-probabilities and return them in ``Completion.logprobs``.

    Examples
    --------
    >>> llm = OpenAICompatibleBackend("http://127.0.0.1:8000/v1", "qwen2.5-0.5b-instruct", api_key="sk-test")
    >>> llm
    OpenAICompatibleBackend(base_url='http://127.0.0.1:8000/v1', model='qwen2.5-0.5b-instruct', api_key=***)
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        allow_redirects: bool = False,
        timeout: float = 60,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        request_logprobs: bool = False,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url) if isinstance(base_url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        if parts.username or parts.password:
            raise ValueError(
                "base_url must not embed credentials; pass api_key or set the api_key_env variable"
            )
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty str, got {model!r}")
        check_float("timeout (seconds)", timeout, low=0.0, low_open=True, finite=False)
        check_int("max_retries", max_retries, low=0)
        check_float("backoff_s (seconds)", backoff_s, low=0.0, finite=False)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff_s = float(backoff_s)
        self.request_logprobs = request_logprobs
        self.__api_key = (
            api_key if api_key is not None else (os.environ.get(api_key_env) if api_key_env else None)
        )
        # A server on this machine is never reached through a proxy, whatever http_proxy says.
        proxies = {} if parts.hostname in _LOOPBACK_HOSTS or parts.hostname.startswith("127.") else None
        self.allow_redirects = allow_redirects
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(proxies), _RedirectPolicy(self.base_url, allow_redirects)
        )

    @property
    def identity(self) -> str:
        return f"openai-compatible:{self.base_url}"

    @property
    def url(self) -> str:
        """The endpoint requests are posted to."""
        return f"{self.base_url}/chat/completions"

    def _redact(self, text: str) -> str:
        return redact_secrets(text, [self.__api_key])

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_dict() for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        if self.request_logprobs:
            body["logprobs"] = True
        return body

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.__api_key:
            headers["Authorization"] = f"Bearer {self.__api_key}"
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            delay = self.backoff_s * 2**attempt
            http_request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with self._opener.open(http_request, timeout=self.timeout) as response:
                    payload = response.read()
                break
            except urllib.error.HTTPError as err:
                message = self._redact(_server_message(err.read()))
                if err.code not in RETRY_STATUSES or attempt == self.max_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise LLMError(
                        f"{self.url} answered HTTP {err.code}{tries}: {message}", status=err.code
                    ) from None
                retry_after = err.headers.get("Retry-After", "") if err.headers else ""
                if retry_after.replace(".", "", 1).isdigit():
                    delay = min(float(retry_after), 60.0)
                reason = f"HTTP {err.code}: {message}"
            except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
                reason = self._redact(str(getattr(err, "reason", err)))
                if attempt == self.max_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise LLMError(f"could not reach {self.url}{tries}: {reason}") from None
            logger.warning(
                "retrying %s in %.2fs (attempt %d failed: %s)", self.url, delay, attempt + 1, reason
            )
            time.sleep(delay)
        try:
            return json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            snippet = self._redact(repr(payload[:200]))
            raise LLMError(f"{self.url} returned a body that is not JSON: {snippet}") from None

    def _chat(self, request: ChatRequest) -> Completion:
        response = self._post(self._body(request))
        try:
            choice = response["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"{self.url} returned no choices[0].message.content: {self._redact(str(response))[:300]}"
            ) from None
        usage = response.get("usage") or {}
        content_logprobs = (choice.get("logprobs") or {}).get("content") if self.request_logprobs else None
        return Completion(
            text=text,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            model=response.get("model") or self.model,
            raw=response,
            logprobs=[float(t["logprob"]) for t in content_logprobs] if content_logprobs else None,
            finish_reason=choice.get("finish_reason"),
        )

    def __repr__(self) -> str:
        key = "***" if self.__api_key else None
        return f"OpenAICompatibleBackend(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"
