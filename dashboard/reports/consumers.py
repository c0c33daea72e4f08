from channels.db import database_sync_to_async

from dashboard.accounts.roles import MANAGER, SUPERVISOR, user_role
from dashboard.live.consumers import PushConsumer

from .publish import CAMPAIGNS, campaign_group


class CampaignsConsumer(PushConsumer):
    minimum_role = SUPERVISOR
    group = CAMPAIGNS


class CampaignConsumer(PushConsumer):
    """One campaign's page: its group is named from the campaign id in the URL, and
    Managers follow the audience that sees the controls."""

    minimum_role = SUPERVISOR

    async def connect(self):
        role = await database_sync_to_async(user_role, thread_sensitive=False)(
            self.scope.get("user")
        )
        campaign_id = self.scope["url_route"]["kwargs"]["campaign_id"]
        self.group = campaign_group(campaign_id, manage=role == MANAGER)
        await super().connect()
