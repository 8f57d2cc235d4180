"""A stub OpenAI-compatible chat server on 127.0.0.1 for the tests of the LLM backend and the agent papers.

``serve_stub()`` is a context manager yielding ``(base_url, state)``: every request is recorded in
``state.requests``; a reply is taken from ``state.replies`` (``(status, payload)`` pairs, a payload a dict or a
raw string), else from ``respond(body)`` when given, else :func:`ok_reply`. The server runs in a daemon thread and
is shut down on exit.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer


class StubState:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.replies: list[tuple[int, dict | str]] = []


def ok_reply(text: str = "pong", **extra) -> tuple[int, dict]:
    return 200, {
        "id": "chatcmpl-1",
        "model": "stub-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 1, "total_tokens": 12},
        **extra,
    }


@contextmanager
def serve_stub(respond: Callable[[dict], str] | None = None) -> Iterator[tuple[str, StubState]]:
    state = StubState()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server hook name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if state.replies:
                status, payload = state.replies.pop(0)
            else:
                status, payload = ok_reply(respond(body)) if respond is not None else ok_reply()
            location = payload.pop("__location__", None) if isinstance(payload, dict) else None
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
