from dashboard.accounts.roles import SUPERVISOR
from dashboard.live.consumers import PushConsumer

from .publish import CAMPAIGNS, campaign_group


class CampaignsConsumer(PushConsumer):
    minimum_role = SUPERVISOR
    group = CAMPAIGNS


class CampaignConsumer(PushConsumer):
    """One campaign's page: its group is named from the campaign id in the URL."""

    minimum_role = SUPERVISOR

    async def connect(self):
        self.group = campaign_group(self.scope["url_route"]["kwargs"]["campaign_id"])
        await super().connect()
