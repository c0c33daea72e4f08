"""The client's address, as the trusted proxies saw it: the sign-in throttle and the audit
log count by it.

Behind `TRUSTED_PROXIES` proxies, each appends the address it was reached from to
`X-Forwarded-For`, so the client's is that many entries from the right; entries further
left are the client's own words. Daphne's `--proxy-headers` puts the left-most in
`REMOTE_ADDR`, which is why it is not read here when there are proxies. With none
(the default), the address is the socket's peer.
"""

from django.conf import settings


def client_address(request) -> str:
    """The address the nearest untrusted hop connected from ("?" without a request)."""
    if request is None:
        return "?"
    meta = request.META
    trusted = settings.TRUSTED_PROXIES
    if trusted:
        hops = [hop.strip() for hop in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [hop for hop in hops if hop]
        if len(hops) >= trusted:
            return hops[-trusted]
    return meta.get("REMOTE_ADDR") or "?"
