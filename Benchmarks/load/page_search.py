#!/usr/bin/env python3
"""The web page's favorites search on the SQLite backend: the fastest of 7 answers.

    python3 Benchmarks/load/page_search.py "$(swift build -c release --show-bin-path)/archive-server"

Pushes 20,000 favorites of about 700 bytes (Japanese and English texts) through
/v1/sync/push, signs a browser in by a link, and times GET /favorites?q=... for a
search that matches nothing (the whole 20,000-favorite window scanned), one that
matches every favorite, and the worst one for a backtracking matcher (199 'a's and
a 'b' through favorites of 'a's is SearchCostTests'; this one measures the common
case). docs/PERFORMANCE.md records its figures."""
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

server = sys.argv[1]
directory = tempfile.mkdtemp(prefix="page-search-")
database = os.path.join(directory, "server.sqlite3")
token = subprocess.run([server, "users", "add", "alice", "--database", database], capture_output=True, text=True, check=True).stdout.strip()
process = subprocess.Popen([server, "--database", database, "--port", "0", "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
try:
    url = process.stdout.readline().strip()
    host = url.split("//")[1]
    device = "0123456789abcdef0123456789abcdef"
    introduction = "ホワイトソースとマカロニに、チーズを焦がした熱々のグラタン。Cheese and macaroni baked golden. " * 3
    for batch in range(40):
        changes = []
        for index in range(500):
            n = batch * 500 + index + 1
            changes.append({"id": n, "stamp": (1_700_000_000_000 + n) * 65_536, "device": device, "favorite": {
                "photoUrl": "https://p/%d.jpg" % n, "category": "洋食", "dishName": "マカロニグラタン %d" % n,
                "shopName": "喫茶 カナリヤ", "introduction": introduction, "storedAt": 1_700_000_000_000 + n}})
        connection = http.client.HTTPConnection(host)
        connection.request("POST", "/v1/sync/push", json.dumps({"device": device, "through": 0, "seen": 0, "changes": changes}),
                           {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            sys.exit("push: %d" % answer.status)
    link = subprocess.run([server, "devices", "link", "alice", "web", "--public-url", url, "--database", database],
                          capture_output=True, text=True, check=True).stdout.strip()
    connection = http.client.HTTPConnection(host)
    connection.request("POST", "/signin", "link=" + link.split("=")[-1], {"Content-Type": "application/x-www-form-urlencoded"})
    answer = connection.getresponse()
    answer.read()
    cookie = answer.getheader("Set-Cookie").split(";")[0]
    for search in ["zzz", "Cheese", "チーズ"]:
        fastest = float("inf")
        for _ in range(7):
            start = time.perf_counter()
            connection = http.client.HTTPConnection(host)
            connection.request("GET", "/favorites?q=" + urllib.parse.quote(search), headers={"Cookie": cookie})
            connection.getresponse().read()
            fastest = min(fastest, time.perf_counter() - start)
        print("%s\t%.1f ms" % (search, fastest * 1000))
finally:
    process.terminate()
    process.wait()
    subprocess.run(["rm", "-rf", directory])
