"""Wire records of the garbage collection endpoints (harbor-v2.0-swagger.yaml: GCHistory,
Schedule, ScheduleObj)."""

import json

from rest_framework import serializers

from registry.api.serializers.fields import HarborTimeField, go_swagger, harbor_time
from registry.gc.models import GCExecution, GCSchedule
from registry.gc.services import JOB_NAME

# How a run was started, as GCHistory.schedule.type says it ('Schedule': by the cron).
RUN_TYPES = {GCExecution.Trigger.MANUAL: "Manual", GCExecution.Trigger.SCHEDULE: "Schedule"}


class ScheduleObjSerializer(serializers.Serializer):
    type = serializers.CharField(required=False)
    cron = serializers.CharField(required=False)
    next_scheduled_time = HarborTimeField()


class GCHistorySerializer(serializers.Serializer):
    """For the published schema; records are written by `execution_record`/`schedule_record`."""

    id = serializers.IntegerField(required=False)
    job_name = serializers.CharField(required=False)
    job_kind = serializers.CharField(required=False)
    job_parameters = serializers.CharField(required=False)
    schedule = ScheduleObjSerializer(required=False)
    job_status = serializers.CharField(required=False)
    deleted = serializers.BooleanField(required=False)
    creation_time = HarborTimeField()
    update_time = HarborTimeField()


class ScheduleSerializer(serializers.Serializer):
    """The body of POST/PUT /system/gc/schedule (types are checked against the schema first)."""

    schedule = ScheduleObjSerializer(required=False)
    parameters = serializers.DictField(required=False)


def execution_record(execution: GCExecution) -> dict:
    return go_swagger(
        {
            "creation_time": harbor_time(execution.creation_time),
            "deleted": False,
            "id": execution.pk,
            "job_kind": execution.trigger,
            "job_name": JOB_NAME,
            "job_parameters": json.dumps(execution.parameters, sort_keys=True),
            "job_status": execution.status,
            "schedule": {"type": RUN_TYPES[execution.trigger]},
            "update_time": harbor_time(execution.update_time),
        }
    )


def schedule_record(schedule: GCSchedule | None) -> dict:
    if schedule is None:
        return {}
    parameters = {"delete_untagged": schedule.delete_untagged, "dry_run": schedule.dry_run}
    return go_swagger(
        {
            "creation_time": harbor_time(schedule.creation_time),
            "id": schedule.pk,
            "job_kind": GCExecution.Trigger.SCHEDULE,
            "job_name": JOB_NAME,
            "job_parameters": json.dumps(parameters, sort_keys=True),
            "schedule": {
                "cron": schedule.cron,
                "next_scheduled_time": harbor_time(schedule.next_run),
                "type": schedule.cron_type,
            },
            "update_time": harbor_time(schedule.update_time),
        }
    )
