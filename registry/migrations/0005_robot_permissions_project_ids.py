"""Bind robots' project permissions to the project's id (registry.robots): a project
robot's to its project, a system robot's to the project its namespace names now; a system
robot's permission naming no existing project is dropped, as Harbor drops it."""

from django.db import migrations


def bind(apps, schema_editor):
    Project = apps.get_model("registry", "Project")
    Robot = apps.get_model("registry", "Robot")
    ids = dict(Project.objects.values_list("name", "pk"))
    for robot in Robot.objects.select_related("project"):
        kept = []
        for permission in robot.permissions:
            if permission.get("kind") == "project" and permission.get("namespace") != "*":
                if robot.project_id is not None:
                    permission["namespace"] = robot.project.name
                    permission["project_id"] = robot.project_id
                elif permission.get("namespace") in ids:
                    permission["project_id"] = ids[permission["namespace"]]
                else:
                    continue
            kept.append(permission)
        robot.permissions = kept
        robot.save(update_fields=["permissions"])


def unbind(apps, schema_editor):
    Robot = apps.get_model("registry", "Robot")
    for robot in Robot.objects.all():
        for permission in robot.permissions:
            permission.pop("project_id", None)
        robot.save(update_fields=["permissions"])


class Migration(migrations.Migration):
    dependencies = [("registry", "0004_garbage_collection")]

    operations = [migrations.RunPython(bind, unbind)]
