"""Harbor's wire records and request bodies, one module per resource group: the only
place that knows the JSON field names."""
