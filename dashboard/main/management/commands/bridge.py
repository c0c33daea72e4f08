"""`manage.py bridge`: the live bridge as its own process (production, over Redis)."""

import asyncio
import signal

from django.core.management.base import BaseCommand

from dashboard.main.bridge_task import BridgeTask


class Command(BaseCommand):
    help = "Follow the service's realtime feed and publish the live state to the web workers."

    def handle(self, **options):
        asyncio.run(self.main())

    async def main(self):
        task = BridgeTask()
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        task.start()
        self.stdout.write("bridge running (Ctrl-C stops it)")
        await stopping.wait()
        await task.stop()
