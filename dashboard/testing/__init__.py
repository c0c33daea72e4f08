"""The test harness: what the tests (tests/) and the benchmarks (bench/) start, drive and
wait on, each in one place. Product code never imports it (tests/test_layers.py).

Modules, each named for what it gives:

- `processes`: `Process` (a child with its output kept as it comes: `said`, `log`,
  `wait_for_line`, `expect`/`say` for line-driven children, `wait`, `stop`, `kill`),
  `run`/`run_manage` (a child run to its end), `command_env`, `free_port`; the one way to
  poll: `wait_until(check, timeout, what)` and, on a test's event loop,
  `await await_until(...)`; time let pass on purpose: `let_pass(seconds, why)`, on a
  test's event loop `await let_pass_async(seconds, why)`, and `async for now in
  each_moment(seconds)`. Tests use nothing else to start, wait or poll
  (tests/test_test_style.py refuses `subprocess`, `time.sleep`, `asyncio.sleep` and
  hand-made polling).
- `simulator`: `start_simulator(*args)` runs `manage.py simulate` and returns a `Sim`
  (`control`, `agents`, `stats`, `sign_in`, `get`, its URLs and users).
- `servers`: `start_dashboard(sim, tmp_path, extra_env)` runs `manage.py serve` and returns
  a `DashboardServer` (`url`, `add_user`, `add_users`, `signed_in_client`,
  `session_cookie`, `manage`, `log`, `stop`); `start_topology` (Redis, workers and
  bridges), `start_bridge`, `start_worker`, `dashboard_env`, `ready`.
- `stores`: `redis_server()` and `postgres_server()` (context managers), and
  `RestartableRedis`/`RestartablePostgres` for a store's outage.
- `browsers`: `sign_in(page, server, user)`, `session_cookies(server, user)`,
  `screenshot(page, name)` (test-artifacts/), `wait_for_js(page, js_condition)`.
- Signing in, one helper per level, each through the real sign-in form: an HTTP client
  (`signed_in_client(url, user)`), a session cookie for a websocket or a raw request
  (`session_cookie(url, user)`), a browser (`browsers.sign_in`, or, for a browser
  context, the same session's cookies: `browsers.session_cookies`); both first are also
  methods of a `DashboardServer`. In process, without a server: the `client_for` fixture
  and `sockets.session_cookie_for(user)`.
- `live_view`: the live view as a browser reads it (`LiveSocket`, `LiveBrowser`, `View`,
  `matches_truth`); `sockets`: in-process websockets (`socket_for`, `communicator`,
  `closed_with`); `feeds`: `Events` (the service's events made by hand) and
  `running_feed`; `agent_day`: an agent's stored day (`a_day`) for the drill-down's tests;
  `upstream`: the adapter wired to a simulator (`session_for`,
  `bridge_for`, `StateSink`, `truth`); `downloads`: `csv_rows` (a CSV download read
  through the test client); `people`, `links`, `routes`, `receiver`; `benchmarks`:
  `bench(scenario, out)` (`make bench`'s runner on one scenario); `httpclient`: `get`,
  `post` and `client()` on one TLS context (`httpx.get` loads one per call).
- `fixtures`: the pytest plugin (tests/conftest.py loads it): `alice` (Manager), `bob`
  (Supervisor), `carol` (Wallboard viewer), `dave` (no role), `client_for`, `role_groups`;
  `simulator` (a test's own), `module_simulator` (one per module, for tests that only
  read), `sim_factory`; `worker_ports` and `hooked_simulator` (its webhooks sent to the
  first of them) for a production topology; `dashboard_server`; `browser` (one Chromium
  per module), `page`; `redis_url`, `postgres_url`.

What keeps the suite fast, for new tests to use:

- A module that only reads from the service takes `module_simulator`, not `simulator`.
- A dashboard's database is a copy of one migrated once per set of migrations
  (`.test-cache/`), never a `migrate` per start; a restart on the same `tmp_path` keeps it.
- The product's slow clocks are settings, shortened for every dashboard the tests start
  (`fixtures.TEST_SETTINGS`: heartbeat 1 s, browsers' staleness 3 s); a value set in the
  shell wins. A test that needs another value passes it in `extra_env`. Passwords are
  hashed with a fast hasher there and in the tests' own database (Django's default costs
  about a second of CPU per sign-in or new user). A dashboard that posts alerts takes
  `alerts.alert_env` (a POST a second at most, digests closed after 0.5 s).
- A test that waits for what a floor does (calls ending, their webhooks, events) runs its
  simulator faster (`--speed`), not longer.
- A management command's start costs seconds on a busy machine: `server.add_users({...},
  then=...)` adds several people (and runs any setup code) in one.
- `Process` and `run` fork `python manage.py ...` and `python -m ...` children from a fork
  server per worker that has the libraries imported (`forkserver`, `forked`): a start
  costs a third to a half of its CPU. The child reads its settings from its own
  environment; `TEST_FORK_SERVER=0` starts every child afresh. `TEST_CHILD_CPU_LOG=file`
  notes each child's CPU seconds and kind as it ends (one JSON line each).
- Real-time windows of the long tests are environment variables with short defaults:
  `TEST_SOAK_S` (the token-rotation soak and the live view's and wallboard's soak, 20 s;
  60 for a whole minute) and
  `TEST_OUTAGE_S` (the refused-sockets outage, 12 s).
- `make test` runs the tests in parallel workers (pytest-xdist, `TEST_WORKERS` of them,
  4 by default, `--dist loadfile`, modules in collection order: `--no-loadscope-reorder`;
  `TEST_WORKERS=0 make test` for one process): a module's tests stay together and in
  order, every port comes from `free_port`, every file from `tmp_path`. Keep it so: no
  fixed port, no shared file, and no reliance on what another module left in the test
  database (a transactional test flushes it: take `role_groups` if you need the roles).
- One long module is the suite's tail: the slowest modules are collected first
  (`SLOW_FIRST` in tests/conftest.py; put a new slow module there), and a module of browser
  tests that grows past a minute is better split in two.
- A poll or a one-off request goes through `httpclient.get`/`post` (a signed-in client
  through `signed_in_client`): `httpx.get` loads a TLS context each time, 23 ms of CPU.
- Faults of a production stack share one stack per module where they can take it back
  as they found it (tests/reliability/test_stack_faults.py): a topology's start is most
  of such a test's CPU.
- Wait with `wait_until`/`await_until`, or a browser's own waits, never a bare sleep
  that assumes how fast the machine is.
"""

import os

# Real-time windows of the long tests (see above); `TEST_SOAK_S=60 make test` for the minute.
SOAK_S = float(os.environ.get("TEST_SOAK_S", "20"))
OUTAGE_S = float(os.environ.get("TEST_OUTAGE_S", "12"))
