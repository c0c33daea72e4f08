"""A scrape of a dashboard's /metrics in tests (the server started with `METRICS_TOKEN`)."""

from prometheus_client.parser import text_string_to_metric_families

from . import httpclient as http

TOKEN = "metrics-token-for-tests"


def scrape(url: str) -> dict:
    """Every sample of a scrape: (name, labels) -> value."""
    r = http.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def value(samples: dict, name: str, **labels) -> float:
    """The sum of `name`'s samples whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))
