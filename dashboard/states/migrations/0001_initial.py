# The drill-down's AgentStates table, renamed in place by drilldown 0003, is this app's
# AgentStates (its rows read as written: codec.py); Opening is new.

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("drilldown", "0003_agent_states_to_states"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AgentStates",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("agent_id", models.CharField(max_length=200)),
                        ("start", models.DateTimeField()),
                        ("states", models.BinaryField()),
                    ],
                    options={
                        "indexes": [
                            models.Index(
                                fields=["agent_id", "start"], name="drilldown_a_agent_i_9a8b2e_idx"
                            ),
                            models.Index(fields=["start"], name="drilldown_a_start_e478f7_idx"),
                        ],
                    },
                ),
            ],
        ),
        migrations.RenameIndex(
            model_name="agentstates",
            new_name="states_agent_start_idx",
            old_name="drilldown_a_agent_i_9a8b2e_idx",
        ),
        migrations.RenameIndex(
            model_name="agentstates",
            new_name="states_start_idx",
            old_name="drilldown_a_start_e478f7_idx",
        ),
        migrations.CreateModel(
            name="Opening",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("start", models.DateTimeField(db_index=True)),
                ("agents", models.BinaryField()),
            ],
        ),
    ]
