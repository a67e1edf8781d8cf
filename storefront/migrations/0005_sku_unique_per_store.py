"""Variants repeat their product's store, so that a unique constraint keeps SKUs unique
within a store (it was only checked before, which two concurrent creates could race)."""

import django.db.models.deletion
from django.db import migrations, models

FILL_STORES = """
UPDATE storefront_variant SET store_id = (
    SELECT product.store_id FROM storefront_product AS product
    WHERE product.id = storefront_variant.product_id
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("storefront", "0004_rate_buckets_in_files"),
    ]

    operations = [
        migrations.AddField(
            model_name="variant",
            name="store",
            field=models.ForeignKey(
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="storefront.store",
            ),
        ),
        migrations.RunSQL(FILL_STORES, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="variant",
            name="store",
            field=models.ForeignKey(
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="storefront.store",
            ),
        ),
        migrations.RemoveIndex(
            model_name="variant",
            name="storefront__sku_8e01b6_idx",
        ),
        migrations.AddConstraint(
            model_name="variant",
            constraint=models.UniqueConstraint(
                fields=("store", "sku"), name="storefront_unique_sku_per_store"
            ),
        ),
    ]
