"""A small webhook receiver on 127.0.0.1 that records deliveries and answers as told."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self, statuses=()):
        # Answers to give, in order, each a status or (status, {header: value}); then 200.
        self.statuses = list(statuses)
        self.received: list[tuple[dict, bytes]] = []
        self.received_at: list[float] = []  # time.time() of each, as it was read
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.received_at.append(time.time())
                receiver.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                answer = receiver.statuses.pop(0) if receiver.statuses else 200
                status, headers = answer if isinstance(answer, tuple) else (answer, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
