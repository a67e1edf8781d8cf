"""Django's Redis cache, with one redis-py client per connection pool.

Django builds a new `redis.Redis` for every cache operation, and building one (its table
of ~170 response callbacks) cost ~80 us: more than the round trip it then made. Every API
request reads the cache at least once (the sign-in checks), so the client is kept. A
client holds no connection of its own (it borrows one from the pool for each command) and
Django's caches are per thread, so sharing it is safe.
"""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _PooledClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _PooledClient
