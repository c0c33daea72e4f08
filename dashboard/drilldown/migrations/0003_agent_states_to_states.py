# The agents' states become the one record of dashboard/states/: the table is renamed in
# place (its rows read as they were written), the model goes to the states app.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("drilldown", "0002_agent_states"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterModelTable(name="agentstates", table="states_agentstates"),
            ],
            state_operations=[
                migrations.DeleteModel(name="AgentStates"),
            ],
        ),
    ]
