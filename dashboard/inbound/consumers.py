"""The inbound pages' sockets: each joins its page's group, and on connect is sent the
page's body as it stands (a push between the page's render and the join is not lost)."""

from django.template.loader import render_to_string

from dashboard.accounts.roles import SUPERVISOR
from dashboard.live.consumers import PushConsumer
from dashboard.live.handshake import in_thread

from . import watched
from .pages import queue_context, queues_context, voicemail_context
from .publish import QUEUES, VOICEMAIL, queue_group


class BodyConsumer(PushConsumer):
    minimum_role = SUPERVISOR
    template = ""

    def context(self) -> dict:
        raise NotImplementedError

    async def send_snapshot(self):
        """Marked as followed before the body is rendered: a board pass after the render
        then pushes to this page."""
        await in_thread(watched.mark)(self.group)
        await super().send_snapshot()
        html = await in_thread(lambda: render_to_string(self.template, self.context()))()
        await self.send(text_data=html)

    async def follow(self):
        """Joined, marked again: the board's next pass pushes the page to its group even
        unchanged, so a push between the body above and the join is not lost here."""
        await super().follow()
        await in_thread(watched.mark)(self.group)


class QueuesConsumer(BodyConsumer):
    group = QUEUES
    template = "inbound/_queues_body.html"

    def context(self):
        return queues_context()


class VoicemailConsumer(BodyConsumer):
    group = VOICEMAIL
    template = "inbound/_voicemail_body.html"

    def context(self):
        return voicemail_context()


class QueueConsumer(BodyConsumer):
    """One queue's page: its group is named from the queue id in the URL."""

    template = "inbound/_queue_body.html"

    async def connect(self):
        self.queue_id = self.scope["url_route"]["kwargs"]["queue_id"][:200]
        self.group = queue_group(self.queue_id)
        await super().connect()

    def context(self):
        return queue_context(self.queue_id)
