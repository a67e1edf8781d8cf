"""Business rules of the code hosting service, one module per aggregate.

Functions take explicit arguments (the acting `Actor` first where it matters), run in
atomic blocks, never run git inside one, and raise the domain errors of codehost.errors;
they know nothing of HTTP. Callers import the module they need
(`from codehost.services import repositories`): nothing is re-exported here.
"""
