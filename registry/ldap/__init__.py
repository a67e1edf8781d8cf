"""The registry's LDAP directory: client (settings, connections, errors), directory
operations, signed-in directory users, onboarding into the registry, and DN/filter syntax.
"""
