"""The store: SQLite (embedded default) or PostgreSQL (shared), one interface
(store/base.py); store/open.py picks the backend from the `store_url` setting."""
