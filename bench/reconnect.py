"""The `reconnect` scenario: a deploy's reconnect storm while people sign in.

500 browsers open their live socket within one second (as after a worker restart: htmx's
websocket extension retries after a jittered delay under a second) while 20 people sign in
through the form in the same second. Each browser counts as back when its snapshot (the
whole view) has arrived; a failed handshake is retried with htmx's backoff. The floor
stays busy (200 events/s): pushes go out while browsers read their snapshot and join the
fan-out, and each browser should still be sent one whole view, then only the pushes it
missed and those that follow. Measured: the time until the last browser was back (the
target: 5 s), the handshakes retried, how long the sign-ins took, and what each browser
was sent in its first `HOLD_S` back: whole views, and bytes (as received, inflated).

Run as a module it is one client process of the storm (bench/run.py starts several).
"""

import argparse
import asyncio
import json
import random
import statistics
import sys
import threading
import time

AGENTS, BROWSERS, SIGN_INS, OVER_S = 1000, 500, 20, 1.0
RATE = 200  # events/s during the storm: the floor's
HOLD_S = 3.0  # each browser reads what it is sent for this long after its snapshot
WHOLE_VIEW = '<div id="agents" class="agents">'
PROCESSES = 3
ATTEMPTS = 8


async def storm(url: str, cookie: str, count: int, start_at: float, over_s: float) -> dict:
    from aiohttp import ClientSession, TCPConnector

    back, retried, failed, sent = [], [0], [], []

    async def browser(delay: float):
        await asyncio.sleep(max(0.0, start_at + delay - time.time()))
        for attempt in range(ATTEMPTS):
            try:
                ws = await http.ws_connect(
                    url, headers={"Cookie": cookie}, origin=origin, max_msg_size=0
                )
                message = await ws.receive(timeout=30)  # the snapshot
                back.append(time.time() - start_at)
                views, size, hold_until = 0, 0, time.time() + HOLD_S
                while isinstance(message.data, str):
                    views += WHOLE_VIEW in message.data
                    size += len(message.data)
                    left = hold_until - time.time()
                    if left <= 0:
                        break
                    try:
                        message = await ws.receive(timeout=left)
                    except TimeoutError:
                        break
                sent.append((views, size))
                await ws.close()
                return
            except Exception as e:
                if attempt == ATTEMPTS - 1:
                    failed.append(f"{type(e).__name__}: {e}")
                    return
                retried[0] += 1
                await asyncio.sleep(random.uniform(0, 2**attempt))  # htmx's full jitter

    origin = url.split("/ws/")[0].replace("ws", "http", 1)
    async with ClientSession(connector=TCPConnector(limit=0)) as http:
        await asyncio.gather(*(browser(random.uniform(0, over_s)) for _ in range(count)))
    return {"back_s": back, "retried": retried[0], "failed": failed[:5], "sent": sent}


def sign_in(server, username: str, start_at: float, out: list):
    time.sleep(max(0.0, start_at - time.time()))
    started = time.monotonic()
    try:
        server.signed_in_client(username, timeout=60).close()
        ok = True
    except Exception:  # a figure, not a crash: counted as not signed in
        ok = False
    out.append((time.monotonic() - started, ok))


def measure(workdir, spawn) -> dict:
    """One storm against a fresh `manage.py serve` at the floor's size; `spawn(module, *args)`
    starts a `python -m` child (bench/run.py's `spawn`)."""
    from dashboard.testing.servers import start_dashboard
    from dashboard.testing.simulator import start_simulator

    sim = start_simulator("--agents", AGENTS, "--events-per-second", RATE, "--faults", "--seed", 7)
    server = None
    try:
        sim.control("pause")
        server = start_dashboard(sim, workdir)
        server.add_user("bench", "supervisor")
        server.add_user("signer", "supervisor")
        server.manage("shell", "-c", clone_users(SIGN_INS))
        http = server.signed_in_client("bench")
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        http.close()
        start_at = time.time() + 3  # every process and thread ready by then
        sim.control("resume")
        url = server.url.replace("http", "ws", 1) + "/ws/live/"
        clients = [
            spawn(
                *("bench.reconnect", "--url", url, "--cookie", cookie, "--start-at", start_at),
                *("--count", BROWSERS // PROCESSES + (i < BROWSERS % PROCESSES)),
            )
            for i in range(PROCESSES)
        ]
        signed, threads = [], []
        for i in range(SIGN_INS):
            at = start_at + random.uniform(0, OVER_S)
            args = (server, f"signer{i}", at, signed)
            threads.append(threading.Thread(target=sign_in, args=args))
            threads[-1].start()
        parts = [json.loads(c.expect("storm ", 120).split(" ", 1)[1]) for c in clients]
        for t in threads:
            t.join(120)
        sim.control("pause")
    finally:
        if server:
            server.stop()
        sim.stop()
    back = sorted(x for p in parts for x in p["back_s"])
    seconds = [s for s, _ in signed]
    sent = [x for p in parts for x in p["sent"]]
    views = sorted(v for v, _ in sent)
    sizes = sorted(b for _, b in sent)
    return {
        "browsers": BROWSERS,
        "sign_ins": SIGN_INS,
        "back": len(back),
        "reconnect_s": round(back[-1], 2) if len(back) == BROWSERS else None,
        "reconnect_p50_s": round(statistics.median(back), 2) if back else None,
        "handshakes_retried": sum(p["retried"] for p in parts),
        "errors": [e for p in parts for e in p["failed"]][:5],
        "signed_in": sum(ok for _, ok in signed),
        "sign_in_s_median": round(statistics.median(seconds), 2) if seconds else None,
        "sign_in_s_max": round(max(seconds), 2) if seconds else None,
        "views_per_browser_median": statistics.median(views) if views else None,
        "views_per_browser_max": views[-1] if views else None,
        "browsers_sent_two_views_or_more": sum(v >= 2 for v in views),
        "kb_per_browser_median": round(statistics.median(sizes) / 1024, 1) if sizes else None,
        "mb_sent_total": round(sum(sizes) / 2**20, 1),
    }


def clone_users(n: int) -> str:
    """Shell code: n more supervisors with the `signer` account's password (one hash, not n)."""
    return (
        "from django.contrib.auth.models import User\n"
        "u = User.objects.get(username='signer')\n"
        f"for i in range({n}):\n"
        "    c = User.objects.create(username=f'signer{i}', password=u.password)\n"
        "    c.groups.set(u.groups.all())\n"
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--cookie", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--start-at", type=float, required=True)
    a = p.parse_args()
    result = asyncio.run(storm(a.url, a.cookie, a.count, a.start_at, OVER_S))
    print("storm " + json.dumps(result), flush=True)
    sys.stdin.read()  # stay until bench/run.py is done with us


if __name__ == "__main__":
    main()
