"""Harbor's search rows written as JSON text by the database.

A search answers every match, unpaged: at 100,000 repositories "repo042" matches 1,000.
Reading each row into Python, building its dict and encoding it cost more than the SQL
that found them. Here each row comes back as the very bytes SEARCH_REPOSITORY renders
and orjson writes: its keys in order, zero counts and a private project left out,
strings escaped as orjson escapes them (SQLite's json_quote, PostgreSQL's to_json; a
test holds the two alike for names holding quotes, control and non-ASCII characters).
"""

from django.db.models import F, Func, TextField


class SearchRepositoryText(Func):
    """A repository row's SEARCH_REPOSITORY JSON text, from the row's `artifact_count`,
    `project_name` and `project_public` annotations and its own columns. Each value is
    read once (`nullif` turns a zero into the NULL that drops its key)."""

    output_field = TextField()

    def __init__(self):
        super().__init__(
            F("artifact_count"),
            F("project_id"),
            F("project_name"),
            F("project_public"),
            F("pull_count"),
            F("name"),
        )

    def as_sql(self, compiler, connection, **extra_context):
        compiled = [compiler.compile(part) for part in self.get_source_expressions()]
        (count, project, project_name, public, pulls, name) = (sql for sql, _ in compiled)
        if connection.vendor == "postgresql":
            quoted = "to_json(CAST({} AS text))::text"
        else:
            quoted = "json_quote({})"
        sql = (
            f"(coalesce('{{\"artifact_count\":' || nullif({count}, 0) || ',', '{{')"
            f" || '\"project_id\":' || {project}"
            f" || ',\"project_name\":' || {quoted.format(project_name)}"
            f" || CASE WHEN {public} THEN ',\"project_public\":true' ELSE '' END"
            f" || coalesce(',\"pull_count\":' || nullif({pulls}, 0), '')"
            f" || ',\"repository_name\":' || {quoted.format(name)} || '}}')"
        )
        return sql, [param for _, params in compiled for param in params]
