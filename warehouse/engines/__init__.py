"""The engines besides the in-process DuckDB every command uses: Spark (the catalog's views, macros
and reports in a SparkSession, and the ingest's conversions fanned out to executors) and the DuckDB
shell of the duckdb-cli package (`tracewh shell`)."""
