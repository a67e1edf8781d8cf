"""Gitea v1 wire shapes, one module per resource group: the only place that knows wire
field names."""
