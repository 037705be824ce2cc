// A standalone merge in C, the peer of MergeProcess: opens the raw C peer's
// fixture with the same pragmas and asks the same 50 IDs through the same
// 64-parameter primary-key query, ITERATIONS times, then exits.
//
//   RawCMergeProcess DATABASE N ITERATIONS
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MergeWorkload.ids: SplitMix64 seeded with iteration + 0x9E3779B9.
static int64_t merge_start(int64_t count, uint64_t iteration) {
    uint64_t state = iteration + 0x9E3779B9ULL;
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    uint64_t span = (uint64_t)(2 * count - 50 > 1 ? 2 * count - 50 : 1);
    return (int64_t)(z % span) + 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: RawCMergeProcess DATABASE N ITERATIONS\n");
        return 64;
    }
    int64_t count = atoll(argv[2]);
    int iterations = atoi(argv[3]);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    char sql[64 * 2 + 64] = "SELECT id FROM archive_objects WHERE id IN (?";
    for (int index = 1; index < 64; index++) strcat(sql, ",?");
    strcat(sql, ")");
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL) != SQLITE_OK) {
        fprintf(stderr, "cannot prepare: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    long found = 0;
    for (int iteration = 0; iteration < iterations; iteration++) {
        int64_t start = merge_start(count, (uint64_t)iteration);
        for (int index = 0; index < 64; index++) sqlite3_bind_int64(stmt, index + 1, start + (index < 50 ? index : 49));
        while (sqlite3_step(stmt) == SQLITE_ROW) found++;
        sqlite3_reset(stmt);
    }
    printf("%ld\n", found);
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    return 0;
}
