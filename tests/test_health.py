def test_it_answers_healthz(db, client):
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


def test_it_refuses_post_to_healthz(db, client):
    assert client.post("/healthz").status_code == 405


def test_it_sends_a_strict_content_security_policy(db, client):
    csp = client.get("/accounts/login/")["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
