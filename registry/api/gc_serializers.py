"""Wire records of the garbage collection endpoints (harbor-v2.0-swagger.yaml: GCHistory,
Schedule, ScheduleObj)."""

import json

from rest_framework import serializers

from config.records import Field
from registry.api.serializers.fields import HarborTimeField, harbor_record, harbor_time
from registry.gc.models import GCExecution, GCSchedule
from registry.gc.services import JOB_NAME

# How a run was started, as GCHistory.schedule.type says it ('Schedule': by the cron).
RUN_TYPES = {GCExecution.Trigger.MANUAL: "Manual", GCExecution.Trigger.SCHEDULE: "Schedule"}

SCHEDULE_OBJ = harbor_record(
    "ScheduleObj",
    {
        "type": Field(serializers.CharField(required=False)),
        "cron": Field(serializers.CharField(required=False)),
        "next_scheduled_time": Field(HarborTimeField(), convert=harbor_time),
    },
    doc=None,
)

# A GCHistory row: a run's columns (`.values(*GC_HISTORY.columns)` of GCExecution), or the
# schedule's as `schedule_record` lays them out (its `time_window_hours` None: a schedule's
# parameters carry no window; its `schedule` the ScheduleObj row).


def _job_parameters(row, context) -> str:
    parameters = {"delete_untagged": row["delete_untagged"], "dry_run": row["dry_run"]}
    if row["time_window_hours"] is not None:
        parameters["time_window"] = row["time_window_hours"]
    return json.dumps(parameters, sort_keys=True)


def _schedule(row, context) -> dict:
    schedule = row.get("schedule") or {
        "type": RUN_TYPES[row["trigger"]],
        "cron": "",
        "next_scheduled_time": None,
    }
    return SCHEDULE_OBJ.render(schedule)


GC_HISTORY = harbor_record(
    "GCHistory",
    {
        "id": Field(serializers.IntegerField(required=False), "pk"),
        "job_name": Field(serializers.CharField(required=False), fixed=JOB_NAME),
        "job_kind": Field(serializers.CharField(required=False), "trigger"),
        "job_parameters": Field(serializers.CharField(required=False), get=_job_parameters),
        "schedule": Field(SCHEDULE_OBJ.serializer(required=False), get=_schedule),
        "job_status": Field(serializers.CharField(required=False), "status"),
        # Deleted runs are not kept: never true, so never written (go-swagger's omitempty).
        "deleted": Field(serializers.BooleanField(required=False), fixed=False),
        "creation_time": Field(HarborTimeField(), convert=harbor_time),
        "update_time": Field(HarborTimeField(), convert=harbor_time),
    },
    extra_columns=("delete_untagged", "dry_run", "time_window_hours"),
    doc="For the published schema; records are written by `execution_record`/`schedule_record`.",
)


class ScheduleSerializer(serializers.Serializer):
    """The body of POST/PUT /system/gc/schedule (types are checked against the schema first)."""

    schedule = SCHEDULE_OBJ.serializer(required=False)
    parameters = serializers.DictField(required=False)


def execution_record(execution: GCExecution) -> dict:
    return GC_HISTORY.render(GC_HISTORY.row_of(execution))


def schedule_record(schedule: GCSchedule | None) -> dict:
    if schedule is None:
        return {}
    row = {
        "pk": schedule.pk,
        "trigger": GCExecution.Trigger.SCHEDULE,
        "status": "",
        "delete_untagged": schedule.delete_untagged,
        "dry_run": schedule.dry_run,
        "time_window_hours": None,
        "creation_time": schedule.creation_time,
        "update_time": schedule.update_time,
        "schedule": {
            "type": schedule.cron_type,
            "cron": schedule.cron,
            "next_scheduled_time": schedule.next_run,
        },
    }
    return GC_HISTORY.render(row)
