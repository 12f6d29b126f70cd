"""What both SQL stores (SQLite and PostgreSQL) share: the same columns in the same order, the same
JSON text for payloads and scraped entries, and the queue's states in one statement. The memory
store reuses the statistics decoder so the three stores count alike."""
