"""The simulated tenant's organisations, users and tokens (a Supabase-style auth provider)."""

import base64
import hashlib
import hmac
import json
import secrets
import time
import uuid
from dataclasses import dataclass, field


@dataclass(frozen=True)
class User:
    id: str
    email: str
    organization_id: str
    role: str  # supervisor, agent
    mfa: bool = False


def org_id(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"sim-org:{name}"))


ORG_A = org_id("a")
ORG_B = org_id("b")


def make_users(password_emails: dict[str, str]) -> dict[str, User]:
    """The four users the simulator accepts, keyed by e-mail."""
    specs = [
        (password_emails["a"], ORG_A, "supervisor", False),
        (password_emails["b"], ORG_B, "supervisor", False),
        (password_emails["agent"], ORG_A, "agent", False),
        (password_emails["mfa"], ORG_A, "supervisor", True),
    ]
    return {
        email: User(str(uuid.uuid5(uuid.NAMESPACE_URL, email)), email, org, role, mfa)
        for email, org, role, mfa in specs
    }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class TokenStore:
    """Issues HS256 JWTs and single-use refresh tokens; answers who a token belongs to."""

    ttl: int
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    access: dict[str, tuple[User, float]] = field(default_factory=dict)
    refresh: dict[str, User] = field(default_factory=dict)

    def issue(self, user: User) -> dict:
        now = time.time()
        exp = now + self.ttl
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = {
            "sub": user.id,
            "email": user.email,
            "exp": int(exp),
            "iat": int(now),
            "jti": secrets.token_hex(8),
            "app_metadata": {"organization_id": user.organization_id, "role": user.role},
        }
        body = _b64(json.dumps(claims).encode())
        sig = _b64(hmac.new(self.key, f"{header}.{body}".encode(), hashlib.sha256).digest())
        access = f"{header}.{body}.{sig}"
        refresh = secrets.token_urlsafe(24)
        self.access[access] = (user, exp)
        self.refresh[refresh] = user
        return {
            "access_token": access,
            "token_type": "bearer",
            "expires_in": self.ttl,
            "expires_at": int(exp),
            "refresh_token": refresh,
            "user": {
                "id": user.id,
                "email": user.email,
                "app_metadata": {"organization_id": user.organization_id, "role": user.role},
            },
        }

    def user_for(self, access_token: str | None) -> User | None:
        entry = self.access.get(access_token or "")
        if entry is None or entry[1] <= time.time():
            return None
        return entry[0]

    def use_refresh(self, refresh_token: str) -> User | None:
        """Single use: the token is gone once presented."""
        return self.refresh.pop(refresh_token, None)

    def expire_all_access(self):
        self.access.clear()

    def revoke_all_refresh(self):
        self.refresh.clear()
