"""A production web worker: Daphne's command line, serving with the dashboard's server.

`python -m dashboard.live.web -b 127.0.0.1 -p 8001 --proxy-headers --websocket_timeout -1
config.asgi:application` takes Daphne's options; the server is `FanoutServer`
(server.py: the fan-out, bounded request bodies, server close codes), as in `manage.py
serve`. See docs/deploy.md.
"""

from dashboard.live.server import FanoutServer  # installs Twisted's asyncio reactor: first  # isort: skip

from daphne.cli import CommandLineInterface


class WebWorker(CommandLineInterface):
    server_class = FanoutServer


if __name__ == "__main__":
    WebWorker.entrypoint()
