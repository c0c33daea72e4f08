"""The harness's plain HTTP requests. `httpx.get` and a new `httpx.Client` each load a TLS
context (certificates, though every server here speaks plain HTTP): about 20 ms of CPU,
paid by each poll of a starting server (ten a second), each simulator control and each
signed-in client. Here one context serves them all, and `get`/`post` go through one
client that keeps no connection between requests, as `httpx.get` does."""

import httpx

TLS = httpx.create_ssl_context()
_client = httpx.Client(verify=TLS, limits=httpx.Limits(max_keepalive_connections=0))


def client(**options) -> httpx.Client:
    """An `httpx.Client(**options)` on the shared TLS context."""
    return httpx.Client(verify=TLS, **options)


def get(url: str, **options) -> httpx.Response:
    return _client.get(url, **options)


def post(url: str, **options) -> httpx.Response:
    return _client.post(url, **options)
