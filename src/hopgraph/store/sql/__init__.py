"""The table code the SQL backends share (SQLite and PostgreSQL speak the same SQL here; see tables.py)."""
