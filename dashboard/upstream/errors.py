"""What can go wrong talking to the service, as errors a person can act on."""


class UpstreamError(Exception):
    """The service answered in a way we cannot use."""


class ContractError(UpstreamError):
    """A payload did not have the shape the contract promises."""


class AuthError(UpstreamError):
    """Sign-in or refresh failed. `kind` tells which failure, for logs and /readyz."""

    MFA_REQUIRED = "mfa_required"
    BAD_CREDENTIALS = "bad_credentials"
    BAD_ANON_KEY = "bad_anon_key"
    REFRESH_REFUSED = "refresh_refused"
    PROVIDER_DOWN = "provider_down"

    HINTS = {
        MFA_REQUIRED: "the service user must be exempted from MFA or complete enrolment",
        BAD_CREDENTIALS: "check UPSTREAM_EMAIL and UPSTREAM_PASSWORD",
        BAD_ANON_KEY: "check UPSTREAM_ANON_KEY",
        REFRESH_REFUSED: "signing in again",
        PROVIDER_DOWN: "retrying with backoff",
    }

    def __init__(self, kind: str, detail: str = ""):
        self.kind, self.detail = kind, detail
        super().__init__(f"{kind}: {detail or self.HINTS.get(kind, '')}".strip())

    @property
    def permanent(self) -> bool:
        """Retrying will not help until someone changes the configuration."""
        return self.kind in (self.MFA_REQUIRED, self.BAD_CREDENTIALS, self.BAD_ANON_KEY)


class Forbidden(UpstreamError):
    def __init__(self, endpoint: str, role: str):
        self.endpoint, self.role = endpoint, role
        super().__init__(
            f"403 on {endpoint}: the service user's role '{role}' may not use it; "
            "give the integration user a role that can"
        )


class NotOffered(UpstreamError):
    """404 or 405 on the whole path of an optional feature (contract 5): the service lacks it."""

    def __init__(self, endpoint: str, status: int, feature: str = ""):
        self.endpoint, self.status, self.feature = endpoint, status, feature
        super().__init__(
            f"{endpoint} answered {status}: this service does not offer {feature or 'it'}"
        )


# ---- Outbound operations ---------------------------------------------------------------
class Conflict(UpstreamError):
    """409: the service refused the request in the resource's current state."""

    def __init__(self, endpoint: str, code: str, message: str):
        self.endpoint, self.code, self.message = endpoint, code, message
        super().__init__(f"409 {code}: {message}".strip())


# ------------------------------------------------------------------------------------------
class ConfigError(UpstreamError):
    """The service refused something our configuration asked for (e.g. joining a room)."""


def auth_error_parts(body) -> tuple[str, str]:
    """(code, message) from any of the three error shapes Supabase-style servers send."""
    if not isinstance(body, dict):
        return "", ""
    code = body.get("error_code") or body.get("error") or body.get("code") or ""
    message = body.get("error_description") or body.get("msg") or body.get("message") or ""
    return str(code), str(message)
