"""The cache's work from the event loop (`cache_work`, shared/aio.py): a cache in this
process's memory is written on the loop at once, with no hop to a thread and back; any
other cache (Redis, over the network) in a worker thread, so the loop never waits on it,
and never in Django's one sync thread, where it would queue behind the views."""

import threading

from asgiref.sync import sync_to_async

from dashboard.shared.aio import cache_work


def on_thread() -> int:
    return threading.get_ident()


async def test_a_cache_in_memory_does_its_work_on_the_loop():
    assert await cache_work(on_thread) == threading.get_ident()


async def test_any_other_cache_does_its_work_in_a_worker_thread(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    django_sync_thread = await sync_to_async(on_thread)()
    ran_on = await cache_work(on_thread)
    assert ran_on not in (threading.get_ident(), django_sync_thread)
