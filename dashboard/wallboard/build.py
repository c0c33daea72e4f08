"""The build id: pages carry it and sockets send it on connect, so an open wallboard sees
a new deploy and reloads itself. It is BUILD_ID when set (for example the git revision a
deploy pipeline knows), else a hash of the files the browser is served."""

import functools
import hashlib

from django.conf import settings


@functools.cache
def build_id() -> str:
    if settings.BUILD_ID:
        return settings.BUILD_ID
    digest = hashlib.sha256()
    roots = [*settings.STATICFILES_DIRS, *settings.TEMPLATES[0]["DIRS"]]
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
