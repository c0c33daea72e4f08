"""The service user's session: password grant, refresh ahead of expiry, rotation.

However many callers ask for a token at once, one renewal runs; the others wait for it.
A refused refresh token falls back to a fresh sign-in; an auth provider that is down is
retried with jittered backoff; MFA, bad credentials and a bad anon key stop and say so.
"""

import asyncio
import logging
import random
import time

import httpx

from dashboard.shared.aio import pause

from .errors import AuthError, auth_error_parts

log = logging.getLogger("dashboard.upstream.auth")
REFRESH_AT = 0.8  # of the token's life
RETRY_CAP_S = 1.5  # an auth provider that is down is tried again at least this often


class AuthSession:
    def __init__(
        self,
        auth_url: str,
        anon_key: str,
        email: str,
        password: str,
        client: httpx.AsyncClient,
        *,
        max_backoff: float = RETRY_CAP_S,
        on_organization=None,
        attempts: int | None = None,
    ):
        self._url = f"{auth_url.rstrip('/')}/auth/v1/token"
        self._anon_key = anon_key
        self._email = email
        self._password = password
        self._client = client
        self._max_backoff = max_backoff
        self._on_organization = on_organization  # told the organisation when it changes
        self._attempts = attempts  # tries of a renewal before it raises; None: until it works
        self._lock = asyncio.Lock()
        self._access: str | None = None
        self._refresh: str | None = None
        self._refresh_due = 0.0
        self._expires = 0.0
        self.organization_id: str | None = None
        self.role = "unknown"
        self.error: AuthError | None = None
        self.renewals = 0

    @property
    def signed_in(self) -> bool:
        return self._access is not None and time.time() < self._expires

    async def token(self) -> str:
        """A token that is not known to be expired, renewed ahead of expiry."""
        if self._access and time.time() < self._refresh_due:
            return self._access
        async with self._lock:
            if not (self._access and time.time() < self._refresh_due):
                await self._renew()
            return self._access

    async def keep_fresh(self, stop: asyncio.Event):
        """Renew at 80 % of each token's life even when nobody asks, so a reconnect or a
        REST call never waits for a renewal and a refresh token is never left to lapse."""
        while not stop.is_set():
            try:
                await self.token()
                wait = max(0.2, self._refresh_due - time.time())
            except AuthError:  # logged and in status(); try again, but gently
                wait = self._max_backoff
            await pause(stop, wait)

    async def invalidate(self, token: str):
        """The service refused `token` (401): the next caller renews, once."""
        if token == self._access:
            self._refresh_due = 0.0
            self._expires = 0.0

    async def _renew(self):
        delay, tries = 0.5, 0
        while True:
            tries += 1
            try:
                if self._refresh:
                    try:
                        await self._grant("refresh_token", {"refresh_token": self._refresh})
                    except AuthError as exc:
                        if exc.kind != AuthError.REFRESH_REFUSED:
                            raise
                        log.warning("refresh token refused; signing in again")
                        self._refresh = None
                        continue
                else:
                    await self._grant(
                        "password", {"email": self._email, "password": self._password}
                    )
                self.error = None
                self.renewals += 1
                return
            except AuthError as exc:
                self.error = exc
                if exc.permanent:
                    log.error("sign-in to the service failed: %s", exc)
                    raise
                if self._attempts and tries >= self._attempts:
                    raise
                log.warning("auth provider unavailable (%s); retrying in %.1f s", exc.detail, delay)
            await asyncio.sleep(random.uniform(delay / 2, delay))
            delay = min(delay * 2, self._max_backoff)

    async def _grant(self, grant: str, body: dict):
        try:
            r = await self._client.post(
                self._url,
                params={"grant_type": grant},
                json=body,
                headers={"apikey": self._anon_key},
                timeout=10,
            )
        except httpx.HTTPError as exc:
            raise AuthError(AuthError.PROVIDER_DOWN, type(exc).__name__) from None
        try:
            data = r.json()
        except ValueError:
            data = None
        if r.status_code == 200 and isinstance(data, dict) and data.get("access_token"):
            self._accept(data)
            return
        raise self._failure(r.status_code, data, grant)

    def _failure(self, status: int, body, grant: str) -> AuthError:
        code, message = auth_error_parts(body)
        if status >= 500 or status == 429:
            return AuthError(AuthError.PROVIDER_DOWN, f"HTTP {status}")
        if status == 401 or "api key" in message.lower():
            return AuthError(AuthError.BAD_ANON_KEY, message or "the anon key was refused")
        if code == "mfa_required" or "mfa" in message.lower():
            return AuthError(AuthError.MFA_REQUIRED, message)
        if grant == "refresh_token":
            return AuthError(AuthError.REFRESH_REFUSED, code or message)
        return AuthError(AuthError.BAD_CREDENTIALS, message or code or f"HTTP {status}")

    def _accept(self, data: dict):
        now = time.time()
        life = data.get("expires_in")
        life = life if isinstance(life, int | float) and life > 0 else 3600
        self._access = data["access_token"]
        self._refresh = data.get("refresh_token") or None
        self._expires = now + life
        self._refresh_due = now + REFRESH_AT * life
        meta = (data.get("user") or {}).get("app_metadata") or {}
        organization_id = meta.get("organization_id") or self.organization_id
        if organization_id != self.organization_id and self._on_organization:
            self._on_organization(organization_id)
        self.organization_id = organization_id
        self.role = meta.get("role") or self.role
