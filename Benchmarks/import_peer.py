#!/usr/bin/env python3
"""What a user would otherwise write to import an export file: json.load, then
one executemany in one transaction, same schema (made by `archive`) and pragmas.
import_peer.py EXPORT.json DATABASE"""
import json
import sqlite3
import sys
from datetime import datetime

records = json.load(open(sys.argv[1], encoding="utf-8"))
db = sqlite3.connect(sys.argv[2], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = FULL")
db.execute("PRAGMA foreign_keys = ON")
rows = ((r["id"], r["photoUrl"], r["category"], r["dishName"], r["shopName"], r["introduction"],
         int(datetime.fromisoformat(r["storedAt"]).timestamp() * 1000)) for r in records)
db.execute("BEGIN")
db.executemany("INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
db.execute("COMMIT")
print(len(records))
