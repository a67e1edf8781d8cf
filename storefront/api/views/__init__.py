"""Store API views: thin. Conventions live on TiendanubeViewMixin, wire names in the
serializers and records, rules in storefront.services, query parameters in filters."""
