"""Harbor's Accessory record: an artifact whose manifest names another as its `subject`
(a cosign or notation signature, an SBOM, anything `oras attach` pushes)."""

from rest_framework import serializers

from config.records import Field
from registry.api.serializers.fields import (
    ALWAYS,
    HarborTimeField,
    _out,
    harbor_record,
    harbor_time,
)
from registry.services.accessories import icon_of, type_of


def _type(row) -> str:
    return type_of(row["artifact_type"], row["accessory_type"])


def _subject(name: str):
    return lambda row, context: context["subject"][name]


ACCESSORY = harbor_record(
    "Accessory",
    {
        "id": Field(_out(serializers.IntegerField), "pk"),
        "artifact_id": Field(_out(serializers.IntegerField), omit=ALWAYS),
        "subject_artifact_id": Field(_out(serializers.IntegerField), get=_subject("id")),
        "subject_artifact_digest": Field(
            _out(serializers.CharField), get=_subject("digest"), omit=ALWAYS
        ),
        "subject_artifact_repo": Field(
            _out(serializers.CharField), get=_subject("repository"), omit=ALWAYS
        ),
        "size": Field(_out(serializers.IntegerField), "artifact__size", omit=ALWAYS),
        "digest": Field(_out(serializers.CharField), "artifact__digest", omit=ALWAYS),
        "type": Field(
            _out(serializers.CharField), get=lambda row, context: _type(row), omit=ALWAYS
        ),
        "icon": Field(
            _out(serializers.CharField),
            get=lambda row, context: icon_of(_type(row)),
            omit=ALWAYS,
        ),
        "creation_time": Field(
            HarborTimeField(), "artifact__push_time", convert=harbor_time, omit=ALWAYS
        ),
    },
    extra_columns=("artifact_type", "accessory_type"),
)
