"""Product pages read kept JSON texts (`ProductText`), valid while their product's
`revision` is the one they were written at. Triggers raise a product's revision on every
write that changes what its JSON holds: the product, its variants and images, its
category links, a linked category, a linked category's subcategories (their ids are
listed). Triggers see the ORM, the admin and raw SQL alike."""

import django.db.models.deletion
from django.db import migrations, models

from config.vendor_sql import PostgresOnlySQL, SQLiteOnlySQL

PRODUCT = "storefront_product"
PARTS = ["storefront_variant", "storefront_productimage", "storefront_product_categories"]
LINKS = "storefront_product_categories"


def raise_linked(categories: str) -> str:
    """Raise the revision of the products linked to the categories `categories` lists."""
    return (
        f"UPDATE {PRODUCT} SET revision = revision + 1 WHERE id IN "
        f"(SELECT product_id FROM {LINKS} WHERE category_id IN ({categories}))"
    )


def raise_one(product: str) -> str:
    return f"UPDATE {PRODUCT} SET revision = revision + 1 WHERE id = {product}"


POSTGRES = [
    # Whatever an UPDATE writes, the revision becomes the previous one plus one.
    "CREATE FUNCTION storefront_product_revise() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN NEW.revision := OLD.revision + 1; RETURN NEW; END $$",
    f"CREATE TRIGGER storefront_product_revise BEFORE UPDATE ON {PRODUCT} "
    "FOR EACH ROW EXECUTE FUNCTION storefront_product_revise()",
    "CREATE FUNCTION storefront_product_part_revise() RETURNS trigger LANGUAGE plpgsql AS $$ "
    f"BEGIN IF TG_OP <> 'INSERT' THEN {raise_one('OLD.product_id')}; END IF; "
    "IF TG_OP = 'INSERT' THEN "
    f"{raise_one('NEW.product_id')}; "
    "ELSIF TG_OP = 'UPDATE' THEN IF NEW.product_id <> OLD.product_id THEN "
    f"{raise_one('NEW.product_id')}; END IF; END IF; RETURN NULL; END $$",
    *(
        f"CREATE TRIGGER {table}_revise AFTER INSERT OR UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION storefront_product_part_revise()"
        for table in PARTS
    ),
    # A category's text lists its subcategories: a child added, moved or deleted changes
    # the text of its parent's products. Rows are locked in id order first, so that two
    # category writes sharing products wait for each other instead of deadlocking.
    "CREATE FUNCTION storefront_category_revise() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "DECLARE touched bigint[]; BEGIN "
    "IF TG_OP = 'INSERT' THEN touched := ARRAY[NEW.parent_id]; "
    "ELSIF TG_OP = 'DELETE' THEN touched := ARRAY[OLD.id, OLD.parent_id]; "
    "ELSIF NEW.parent_id IS DISTINCT FROM OLD.parent_id THEN "
    "touched := ARRAY[NEW.id, OLD.parent_id, NEW.parent_id]; "
    "ELSE touched := ARRAY[NEW.id]; END IF; "
    f"PERFORM 1 FROM {PRODUCT} WHERE id IN (SELECT product_id FROM {LINKS} "
    "WHERE category_id = ANY(touched)) ORDER BY id FOR UPDATE; "
    f"{raise_linked('SELECT unnest(touched)')}; RETURN NULL; END $$",
    "CREATE TRIGGER storefront_category_revise AFTER INSERT OR UPDATE OR DELETE "
    "ON storefront_category FOR EACH ROW EXECUTE FUNCTION storefront_category_revise()",
]
POSTGRES_REVERSE = [
    "DROP TRIGGER storefront_category_revise ON storefront_category",
    "DROP FUNCTION storefront_category_revise()",
    *(f"DROP TRIGGER {table}_revise ON {table}" for table in PARTS),
    "DROP FUNCTION storefront_product_part_revise()",
    f"DROP TRIGGER storefront_product_revise ON {PRODUCT}",
    "DROP FUNCTION storefront_product_revise()",
]

# SQLite triggers do not fire themselves again (recursive_triggers is off).
SQLITE_TRIGGERS = {
    "storefront_product_revise": f"AFTER UPDATE ON {PRODUCT} BEGIN "
    f"UPDATE {PRODUCT} SET revision = OLD.revision + 1 WHERE id = NEW.id; END",
    **{
        f"{table}_revise_{event.lower()}": f"AFTER {event} ON {table} BEGIN {change}; END"
        for table in PARTS
        for event, change in (
            ("INSERT", raise_one("NEW.product_id")),
            ("DELETE", raise_one("OLD.product_id")),
            (
                "UPDATE",
                f"UPDATE {PRODUCT} SET revision = revision + 1 "
                "WHERE id IN (OLD.product_id, NEW.product_id)",
            ),
        )
    },
    "storefront_category_revise_insert": "AFTER INSERT ON storefront_category BEGIN "
    f"{raise_linked('NEW.parent_id')}; END",
    "storefront_category_revise_delete": "AFTER DELETE ON storefront_category BEGIN "
    f"{raise_linked('OLD.id, OLD.parent_id')}; END",
    "storefront_category_revise_update": "AFTER UPDATE ON storefront_category BEGIN "
    f"UPDATE {PRODUCT} SET revision = revision + 1 WHERE id IN (SELECT product_id "
    f"FROM {LINKS} WHERE category_id = NEW.id OR (OLD.parent_id IS NOT NEW.parent_id "
    "AND category_id IN (OLD.parent_id, NEW.parent_id))); END",
}


class Migration(migrations.Migration):
    dependencies = [
        ("storefront", "0005_sku_unique_per_store"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="revision",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.CreateModel(
            name="ProductText",
            fields=[
                (
                    "product",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="storefront.product",
                    ),
                ),
                ("revision", models.BigIntegerField()),
                ("form", models.CharField(max_length=64)),
                ("body", models.BinaryField()),
            ],
        ),
        PostgresOnlySQL(POSTGRES, reverse_sql=POSTGRES_REVERSE),
        SQLiteOnlySQL(
            [f"CREATE TRIGGER {name} {body}" for name, body in SQLITE_TRIGGERS.items()],
            reverse_sql=[f"DROP TRIGGER {name}" for name in SQLITE_TRIGGERS],
        ),
    ]
