from dashboard.accounts.roles import MANAGER, SUPERVISOR
from dashboard.live.consumers import PushConsumer

from .publish import COACHING, QA


class CoachingConsumer(PushConsumer):
    minimum_role = MANAGER
    group = COACHING


class QaConsumer(PushConsumer):
    minimum_role = SUPERVISOR
    group = QA
