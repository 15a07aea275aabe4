"""The database servers: opening an engine for a URL (`engine`), one class a dialect for what
differs between SQLite and PostgreSQL (`dialects`), each dialect's bulk row writers (`bulk`),
and driver errors as one line each (`errors`)."""
