"""Register the dashboard's webhook on the service, send its test delivery, or replay one."""

import asyncio

import httpx
from django.core.management.base import BaseCommand, CommandError

from dashboard.upstream.errors import UpstreamError
from dashboard.upstream.rest import from_settings


class Command(BaseCommand):
    help = "Create the outbound webhook (five events) on the service; or --test / --replay."

    def add_arguments(self, parser):
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--url", help="the dashboard's receiver, ending /webhooks/service/")
        action.add_argument("--test", metavar="WEBHOOK_ID", help="ask for a sample delivery")
        action.add_argument(
            "--replay",
            nargs=2,
            metavar=("WEBHOOK_ID", "DELIVERY_ID"),
            help="send one logged delivery again",
        )
        parser.add_argument("--name", default="Supervisor dashboard")

    def handle(self, url, test, replay, name, **options):
        try:
            asyncio.run(self.run(url, test, replay, name))
        except UpstreamError as exc:  # 422 invalid event, 403 role, auth: said plainly
            raise CommandError(str(exc)) from None

    async def run(self, url, test, replay, name):
        async with httpx.AsyncClient() as client:
            rest = from_settings(client)
            if url:
                hook = await rest.create_webhook(name, url)
                self.stdout.write(
                    f"Webhook {hook.id} created for {', '.join(hook.events)}.\n"
                    f"Its signing secret (shown once): {hook.secret}\n"
                    "Add it to UPSTREAM_WEBHOOK_SECRETS in the environment or .env (comma-"
                    "separated; keep the old one there too until its deliveries stop), "
                    "then restart the dashboard."
                )
            elif test:
                if not await rest.test_webhook(test):
                    raise CommandError(f"The service has no webhook {test}.")
                self.stdout.write(f"Sample delivery requested for webhook {test}.")
            else:
                hook_id, delivery_id = replay
                if not await rest.replay(hook_id, delivery_id):
                    raise CommandError(f"The service has no delivery {delivery_id} on {hook_id}.")
                self.stdout.write(f"Delivery {delivery_id} replayed.")
