"""Gives every user of the load its favorites through the real sync API (Benchmarks/load/run.sh).

    python3 seed.py URL TOKENS FAVORITES SEED_MS

TOKENS holds a line per user, user 1 first: the bearer tokens of its devices 1, 2 and 3. Each
user's devices 2 and 3 pull once, which binds each one's token to it as a device's first sync
does (so that every request of the load, and every statement of pgbench's, is a bound device's),
and its device 1 (with its own token) pushes FAVORITES
favorites (IDs 1..FAVORITES) in pushes of at most 1,000, stamped at SEED_MS (milliseconds since
1970: run.sh passes a day before its first run's clock, so that every push of the load replaces
a seeded favorite and lands, as a device's new heart does), four users at a time. Exits 1 on the
first push not answered 200.
"""
import concurrent.futures
import json
import sys
import urllib.request



def device(user: int, which: int) -> str:
    return f"{user:016x}{which:016x}"


def favorite(user: int, favorite_id: int) -> dict:
    return {
        "photoUrl": f"https://example.com/archive/{user}/{favorite_id}.jpg",
        "category": "洋食",
        "dishName": f"チーズハンバーグ {favorite_id}",
        "shopName": "レストラン北斗",
        "introduction": "肉汁あふれるハンバーグにとろけるチーズ。週末限定の人気メニューです。",
        "storedAt": 1_790_000_000_000 + favorite_id,
    }


def bind(url: str, user: int, which: int, token: str) -> None:
    request = urllib.request.Request(
        f"{url}/v1/sync/pull?device={device(user, which)}&cursor=0&limit=1", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=120) as answer:
        json.load(answer)


def seed(url: str, user: int, tokens: list, favorites: int, seed_ms: int) -> None:
    for which in (2, 3):
        bind(url, user, which, tokens[which - 1])
    token = tokens[0]
    pushed = 0
    for start in range(1, favorites + 1, 1000):
        ids = range(start, min(start + 1000, favorites + 1))
        changes = [{"id": i, "stamp": (seed_ms << 16) + i, "device": device(user, 1), "favorite": favorite(user, i)} for i in ids]
        pushed += len(changes)
        body = json.dumps({"device": device(user, 1), "through": pushed, "seen": 0, "changes": changes}).encode()
        request = urllib.request.Request(
            url + "/v1/sync/push", data=body, method="POST",
            headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as answer:
            summary = json.load(answer)
            if summary.get("applied", 0) + summary.get("alreadyHeld", 0) != len(changes):
                raise RuntimeError(f"user {user}: the seed push answered {summary}")


def main() -> None:
    url, tokens_path, favorites, seed_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(tokens_path) as file:
        tokens = [line.split() for line in file if line.strip()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for future in [pool.submit(seed, url, user, devices, favorites, seed_ms) for user, devices in enumerate(tokens, start=1)]:
            future.result()
    print(f"seeded {len(tokens)} users with {favorites} favorites each")


if __name__ == "__main__":
    main()
