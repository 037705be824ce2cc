// A probe, not part of the package: what a favorites search index of the engine's
// own, built in bulk, would cost at import, against the import without an index.
//
// BENCHMARKS.md's notes show why FTS5 cannot keep the import at 0.6x of the import
// without the index (issue 14): one FTS5 row per favorite costs 0.69x on its own, and
// its hash of pending terms, one insert per gram, most of the rest. This probe
// measures the alternative those notes name, so that the redesign starts from a
// measured figure:
//
//   - every folded scalar starts a gram (the scalar and the two after it, padded at
//     a text's end), as in the engine's SearchGrams; a gram becomes a 32-bit key whose
//     top 11 bits depend only on its first scalar and the next 11 only on its second,
//     so the engine's 1- and 2-character keywords stay range queries; keys collide,
//     which only adds candidates that the engine checks anyway (SearchKeyword);
//   - the favorites of a run (16,384 by default) are sorted by ID, their grams
//     written as (key << 32 | position) pairs, and the pairs sorted by key with a
//     three-pass radix sort; the run is written as blocks of about 4 KiB (a long
//     list alone) of (key, IDs ascending as delta varints), a row a block,
//     `(run, first key, size, block)`, in a WITHOUT ROWID table;
//   - `parallel` cuts and sorts a run on a second thread while the first inserts
//     the next run's favorites; only the index rows' inserts are the writer's;
//   - with FAN_IN (2...64), whenever that many runs share a level they are merged
//     into one run of the next level, in the same transaction (a search looks a key
//     up in every run, so their number is its cost); 8 by default, 0 never merges;
//   - `pipelined` is `parallel` whose second thread also merges each FAN_IN runs it
//     built, in memory, before the writer writes them as one run of level 1: the
//     first level of merges reads nothing back from SQLite.
//
// The data are the benchmarks' favorites (BenchmarkPeers/WorkloadData: IDs 2..2N,
// about 133 characters of Japanese and Latin text), inserted newest first as an
// import of an export does, with the engine's schema and pragmas, in one
// transaction. The folding is ASCII's, which for these texts (ASCII, kana, CJK) is
// what the engine's SearchFolding does. After the import the probe looks up four
// keywords through the index (their windows' lists intersected, a list over 1/8 of the
// favorites left out) and checks each answer against a scan; a difference exits 1.
//
// DATABASE (default /tmp/bulk_index_probe.sqlite3) is deleted and made again: the probe
// refuses a path that exists and is not a database it made.
//
// Build and run (Debian: libsqlite3-dev):
//   cc -O2 -o /tmp/bulk_index_probe Benchmarks/probes/bulk_index_probe.c -lsqlite3 -lpthread
//   /tmp/bulk_index_probe N none|fts5|serial|parallel|pipelined [RUN_SIZE [DATABASE [fixture|varied [FAN_IN]]]]
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

// MARK: - The favorites

typedef struct {
    int64_t id;
    char *text[5];
    int length[5];
    int64_t stored_at;
} favorite;

static const char *categories[] = {"和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"};
static const char *phrases[] = {"出汁の香る", "炭火で焼いた", "とろけるチーズの", "季節の野菜たっぷりの", "香辛料の効いた", "ふわふわ食感の"};
// The keywords looked up after the import: the benchmarks' rare one (1, 6 and 56
// favorites at 10,000, 200,000 and 1,000,000), denser ones that a small N holds, and
// one that no favorite holds.
static const char *keywords[] = {"番号 12346", "番号 12", "炭火で焼いた料理 24", "寿司屋"};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what) {
    fprintf(stderr, "bulk_index_probe: %s\n", what);
    exit(1);
}

static char *format(int *length, const char *pattern, ...) {
    char buffer[512];
    va_list arguments;
    va_start(arguments, pattern);
    *length = vsnprintf(buffer, sizeof buffer, pattern, arguments);
    va_end(arguments);
    char *copy = strdup(buffer);
    if (!copy) fail("out of memory");
    return copy;
}

// With `varied`, 48 pseudo-random kana and kanji (seeded by the number) replace the
// introduction's fixed sentence, so that few of its grams repeat from one favorite to
// the next: the index's rows a run then approach its distinct grams.
static int varied;

static char *varied_sentence(int number) {
    static char buffer[256];
    uint32_t state = 2463534242u ^ (uint32_t)number * 2654435761u;
    int length = 0;
    for (int k = 0; k < 48; k++) {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5;
        uint32_t pick = state % 3176, scalar = pick < 86 ? 0x3041 + pick : pick < 176 ? 0x30A1 + pick - 86 : 0x4E00 + pick - 176;
        buffer[length++] = (char)(0xE0 | (scalar >> 12));
        buffer[length++] = (char)(0x80 | ((scalar >> 6) & 0x3F));
        buffer[length++] = (char)(0x80 | (scalar & 0x3F));
    }
    buffer[length] = 0;
    return buffer;
}

// The `number`-th favorite, as WorkloadData.object(number:) makes it.
static void make_favorite(favorite *f, int number) {
    int64_t id = (int64_t)number * 2;
    const char *phrase = phrases[number % 6];
    f->id = id;
    f->stored_at = 1700000000000LL + id;
    f->text[0] = format(&f->length[0], "https://photos.favorite-archive.example/dishes/%lld.jpg", (long long)id);
    f->text[1] = format(&f->length[1], "%s", categories[number % 6]);
    f->text[2] = format(&f->length[2], "%s料理 %lld", phrase, (long long)id);
    f->text[3] = format(&f->length[3], "お店 %d 号店", number % 997);
    f->text[4] = format(&f->length[4], "%s一皿。%s番号 %lld", phrase,
                        varied ? varied_sentence(number) : "毎日仕込む自家製のソースと、厳選した食材で作る当店自慢の料理です。",
                        (long long)id);
}

// MARK: - Grams and keys

static const uint32_t padding = 0xFFFFFFFF;

static inline uint32_t spread(uint32_t scalar) { return scalar * 0x9E3779B1u; }

static inline uint32_t gram_key(uint32_t first, uint32_t second, uint32_t third) {
    return ((spread(first) >> 21) << 21) | ((spread(second) >> 21) << 10) | (spread(third) >> 22);
}

static inline uint32_t fold(uint32_t scalar) { return (scalar >= 'A' && scalar <= 'Z') ? scalar + 32 : scalar; }

// Decodes the scalar at bytes[*at] (the texts are valid UTF-8) and moves past it.
static inline uint32_t next_scalar(const unsigned char *bytes, int *at) {
    int i = *at;
    uint32_t lead = bytes[i];
    if (lead < 0x80) { *at = i + 1; return lead; }
    if (lead < 0xE0) { *at = i + 2; return ((lead & 0x1F) << 6) | (bytes[i + 1] & 0x3F); }
    if (lead < 0xF0) {
        *at = i + 3;
        return ((lead & 0x0F) << 12) | ((bytes[i + 1] & 0x3F) << 6) | (bytes[i + 2] & 0x3F);
    }
    *at = i + 4;
    return ((lead & 0x07) << 18) | ((bytes[i + 1] & 0x3F) << 12) | ((bytes[i + 2] & 0x3F) << 6) | (bytes[i + 3] & 0x3F);
}

// Calls emit(key, context) for every gram of the text.
static void for_each_key(const unsigned char *bytes, int length, void (*emit)(uint32_t, void *), void *context) {
    uint32_t first = 0, second = 0;
    int count = 0, at = 0;
    while (at < length) {
        uint32_t scalar = fold(next_scalar(bytes, &at));
        if (count >= 2) emit(gram_key(first, second, scalar), context);
        first = second;
        second = scalar;
        count++;
    }
    if (count >= 2) emit(gram_key(first, second, padding), context);
    if (count >= 1) emit(gram_key(second, padding, padding), context);
}

// MARK: - Building a run

// A run's lists in key order, before they are written: per key, (key: u32, length: u32,
// IDs ascending as delta varints).
typedef struct {
    unsigned char *bytes;
    size_t length, capacity, count;
} records;

typedef struct {
    favorite **favorites;
    int count;
    uint64_t *pairs, *scratch;
    size_t pair_count, pair_capacity;
    records out;
} run;

// A run's buffers, for `size` favorites of up to 400 grams each.
static void init_run(run *r, int size) {
    memset(r, 0, sizeof *r);
    r->favorites = malloc(sizeof(favorite *) * size);
    r->pair_capacity = (size_t)size * 400;
    r->pairs = malloc(r->pair_capacity * 8);
    r->scratch = malloc(r->pair_capacity * 8);
    if (!r->favorites || !r->pairs || !r->scratch) fail("out of memory");
}

// What the gram cutter appends to: a run, and the position of the favorite being cut.
typedef struct { run *run; uint32_t position; } cutting;

static void push_pair(uint32_t key, void *context) {
    cutting *c = context;
    run *r = c->run;
    if (r->pair_count == r->pair_capacity) fail("a run holds more grams than its buffer");
    r->pairs[r->pair_count++] = ((uint64_t)key << 32) | c->position;
}

static int by_id(const void *a, const void *b) {
    int64_t x = (*(favorite *const *)a)->id, y = (*(favorite *const *)b)->id;
    return x < y ? -1 : x > y;
}

// A stable least-significant-digit radix sort of the pairs by their top 32 bits.
static void sort_pairs(run *r) {
    static const int shifts[3] = {32, 43, 54}, widths[3] = {11, 11, 10};
    size_t counts[2048];
    uint64_t *source = r->pairs, *target = r->scratch;
    for (int pass = 0; pass < 3; pass++) {
        size_t buckets = (size_t)1 << widths[pass];
        uint64_t mask = buckets - 1;
        int shift = shifts[pass];
        memset(counts, 0, buckets * sizeof counts[0]);
        for (size_t i = 0; i < r->pair_count; i++) counts[(source[i] >> shift) & mask]++;
        size_t sum = 0;
        for (size_t b = 0; b < buckets; b++) { size_t c = counts[b]; counts[b] = sum; sum += c; }
        for (size_t i = 0; i < r->pair_count; i++) target[counts[(source[i] >> shift) & mask]++] = source[i];
        uint64_t *swap = source; source = target; target = swap;
    }
    r->pairs = source;
    r->scratch = target;
}

static void reserve_records(records *out, size_t more) {
    if (out->length + more <= out->capacity) return;
    out->capacity = 2 * (out->length + more);
    out->bytes = realloc(out->bytes, out->capacity);
    if (!out->bytes) fail("out of memory");
}

// Cuts, sorts and encodes a run: the part that needs no database.
static void build_run(run *r) {
    qsort(r->favorites, r->count, sizeof r->favorites[0], by_id);
    r->pair_count = 0;
    for (int position = 0; position < r->count; position++) {
        favorite *f = r->favorites[position];
        cutting c = {r, (uint32_t)position};
        for (int field = 0; field < 5; field++) {
            for_each_key((const unsigned char *)f->text[field], f->length[field], push_pair, &c);
        }
    }
    sort_pairs(r);
    records *out = &r->out;
    out->length = 0;
    out->count = 0;
    size_t i = 0;
    while (i < r->pair_count) {
        uint32_t key = (uint32_t)(r->pairs[i] >> 32);
        reserve_records(out, 8 + (size_t)10 * r->count);
        size_t header = out->length;
        out->length += 8;
        int64_t previous_id = 0;
        int64_t previous_position = -1;
        for (; i < r->pair_count && (uint32_t)(r->pairs[i] >> 32) == key; i++) {
            int64_t position = (uint32_t)r->pairs[i];
            if (position == previous_position) continue;  // a gram repeated in one favorite
            previous_position = position;
            int64_t id = r->favorites[position]->id;
            uint64_t delta = (uint64_t)(id - previous_id);
            previous_id = id;
            while (delta >= 0x80) { out->bytes[out->length++] = (unsigned char)(delta | 0x80); delta >>= 7; }
            out->bytes[out->length++] = (unsigned char)delta;
        }
        uint32_t length = (uint32_t)(out->length - header - 8);
        memcpy(out->bytes + header, &key, 4);
        memcpy(out->bytes + header + 4, &length, 4);
        out->count++;
    }
}

// MARK: - Writing runs as blocks

// A run's lists as blocks of about 4 KiB, each row `(run, first key, size, block)`, a block
// being entries of (key: 4 bytes, length: varint, IDs: delta varints); a key's list is
// never split, so one block answers for a key.
typedef struct {
    sqlite3_stmt *insert;
    int number;
    unsigned char *bytes;
    size_t length, capacity;
    uint32_t first_key;
} block_writer;

static void flush_block(block_writer *w) {
    if (w->length == 0) return;
    sqlite3_bind_int(w->insert, 1, w->number);
    sqlite3_bind_int64(w->insert, 2, w->first_key);
    sqlite3_bind_int64(w->insert, 3, (int64_t)w->length);
    sqlite3_bind_blob(w->insert, 4, w->bytes, (int)w->length, SQLITE_STATIC);
    if (sqlite3_step(w->insert) != SQLITE_DONE) fail("an index row was refused");
    sqlite3_reset(w->insert);
    w->length = 0;
}

// A list that would take a block past 4 KiB starts a new one, so that a long list (a gram
// most favorites hold) has a block of its own and a short one is never read beside it.
static void append_entry(block_writer *w, uint32_t key, const unsigned char *list, size_t length) {
    if (w->length > 0 && w->length + 9 + length > 4096) flush_block(w);
    if (w->length == 0) w->first_key = key;
    if (w->length + 14 + length > w->capacity) {
        w->capacity = 2 * (w->length + 14 + length);
        w->bytes = realloc(w->bytes, w->capacity);
        if (!w->bytes) fail("out of memory");
    }
    memcpy(w->bytes + w->length, &key, 4);
    w->length += 4;
    size_t value = length;
    while (value >= 0x80) { w->bytes[w->length++] = (unsigned char)(value | 0x80); value >>= 7; }
    w->bytes[w->length++] = (unsigned char)value;
    memcpy(w->bytes + w->length, list, length);
    w->length += length;
}

static void write_records(sqlite3_stmt *insert, const records *in, int number) {
    static block_writer w;
    w.insert = insert;
    w.number = number;
    size_t at = 0;
    for (size_t record = 0; record < in->count; record++) {
        uint32_t key, length;
        memcpy(&key, in->bytes + at, 4);
        memcpy(&length, in->bytes + at + 4, 4);
        append_entry(&w, key, in->bytes + at + 8, length);
        at += 8 + length;
    }
    flush_block(&w);
}

static uint64_t read_varint(const unsigned char *bytes, int *at) {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char byte = bytes[(*at)++];
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) return value;
    }
}

// MARK: - Merging runs

// Merges `count` ascending lists of delta varints (IDs held by one run each) into `out`,
// ascending, by taking the smallest head each time; returns the bytes written (at most
// the lists' bytes plus 10 a list: a first delta can grow by a varint's length).
static size_t merge_lists(const unsigned char *const *lists, const int *lengths, int count, unsigned char *out) {
    int64_t heads[64];
    int positions[64], members[64], member_count = 0;
    for (int i = 0; i < count; i++) {
        if (lengths[i] == 0) continue;
        members[member_count] = i;
        positions[member_count] = 0;
        heads[member_count] = (int64_t)read_varint(lists[i], &positions[member_count]);
        member_count++;
    }
    size_t length = 0;
    int64_t previous = 0;
    while (member_count > 0) {
        int smallest = 0;
        for (int m = 1; m < member_count; m++) if (heads[m] < heads[smallest]) smallest = m;
        uint64_t delta = (uint64_t)(heads[smallest] - previous);
        previous = heads[smallest];
        while (delta >= 0x80) { out[length++] = (unsigned char)(delta | 0x80); delta >>= 7; }
        out[length++] = (unsigned char)delta;
        int list = members[smallest];
        if (positions[smallest] < lengths[list]) {
            heads[smallest] += (int64_t)read_varint(lists[list], &positions[smallest]);
        } else {
            members[smallest] = members[member_count - 1];
            positions[smallest] = positions[member_count - 1];
            heads[smallest] = heads[member_count - 1];
            member_count--;
        }
    }
    return length;
}

// The runs in the index and their levels: a run written from favorites is at level 0;
// `fan_in` runs of one level are merged into one run of the next (0: never merged).
static int live_number[4096], live_level[4096], live_count, fan_in, pipelined;
static double merge_seconds;

// One run read in key order, an entry at a time. Each block is copied out of SQLite:
// the merge inserts into the same table while its cursors are open.
typedef struct {
    sqlite3_stmt *select;
    unsigned char *block;
    int block_length, block_capacity, at, done;
    uint32_t key;
    const unsigned char *list;
    int list_length;
} run_cursor;

static void advance(run_cursor *c) {
    while (c->at >= c->block_length) {
        if (sqlite3_step(c->select) != SQLITE_ROW) { c->done = 1; return; }
        const void *bytes = sqlite3_column_blob(c->select, 0);
        c->block_length = sqlite3_column_bytes(c->select, 0);
        if (c->block_length > c->block_capacity) {
            c->block_capacity = 2 * c->block_length;
            c->block = realloc(c->block, c->block_capacity);
            if (!c->block) fail("out of memory");
        }
        memcpy(c->block, bytes, c->block_length);
        c->at = 0;
    }
    memcpy(&c->key, c->block + c->at, 4);
    c->at += 4;
    c->list_length = (int)read_varint(c->block, &c->at);
    c->list = c->block + c->at;
    c->at += c->list_length;
}

// Merges the runs numbered `numbers[0..<count]` into run `target`, then deletes them.
static void merge_runs(sqlite3 *db, sqlite3_stmt *insert, const int *numbers, int count, int target) {
    run_cursor cursors[64];
    static block_writer w;
    static unsigned char *merged;
    static size_t merged_capacity;
    w.insert = insert;
    w.number = target;
    for (int i = 0; i < count; i++) {
        memset(&cursors[i], 0, sizeof cursors[i]);
        if (sqlite3_prepare_v2(db, "SELECT block FROM archive_search_runs WHERE run = ? ORDER BY first_key", -1,
                               &cursors[i].select, NULL)) {
            fail(sqlite3_errmsg(db));
        }
        sqlite3_bind_int(cursors[i].select, 1, numbers[i]);
        advance(&cursors[i]);
    }
    for (;;) {
        int have = 0;
        uint32_t key = 0;
        for (int i = 0; i < count; i++) {
            if (!cursors[i].done && (!have || cursors[i].key < key)) { key = cursors[i].key; have = 1; }
        }
        if (!have) break;
        const unsigned char *lists[64];
        int lengths[64], list_count = 0;
        size_t total = 0;
        for (int i = 0; i < count; i++) {
            if (cursors[i].done || cursors[i].key != key) continue;
            lists[list_count] = cursors[i].list;
            lengths[list_count++] = cursors[i].list_length;
            total += cursors[i].list_length + 10;
        }
        if (total > merged_capacity) {
            merged_capacity = 2 * total;
            merged = realloc(merged, merged_capacity);
            if (!merged) fail("out of memory");
        }
        append_entry(&w, key, merged, merge_lists(lists, lengths, list_count, merged));
        for (int i = 0; i < count; i++) if (!cursors[i].done && cursors[i].key == key) advance(&cursors[i]);
    }
    flush_block(&w);
    sqlite3_stmt *drop;
    if (sqlite3_prepare_v2(db, "DELETE FROM archive_search_runs WHERE run = ?", -1, &drop, NULL)) fail(sqlite3_errmsg(db));
    for (int i = 0; i < count; i++) {
        sqlite3_finalize(cursors[i].select);
        free(cursors[i].block);
        sqlite3_bind_int(drop, 1, numbers[i]);
        if (sqlite3_step(drop) != SQLITE_DONE) fail(sqlite3_errmsg(db));
        sqlite3_reset(drop);
    }
    sqlite3_finalize(drop);
}

// Notes a new run at `level`, then merges while `fan_in` runs share a level.
static void add_run(sqlite3 *db, sqlite3_stmt *insert, int number, int level, int *next_number) {
    if (live_count == 4096) fail("too many runs");
    live_number[live_count] = number;
    live_level[live_count++] = level;
    for (; fan_in > 1; level++) {
        int numbers[64], count = 0;
        for (int i = 0; i < live_count; i++) if (live_level[i] == level) numbers[count++] = live_number[i];
        if (count < fan_in) return;
        double start = now();
        int target = (*next_number)++;
        merge_runs(db, insert, numbers, count, target);
        int kept = 0;
        for (int i = 0; i < live_count; i++) {
            if (live_level[i] == level) continue;
            live_number[kept] = live_number[i];
            live_level[kept++] = live_level[i];
        }
        live_count = kept;
        live_number[live_count] = target;
        live_level[live_count++] = level + 1;
        merge_seconds += now() - start;
    }
}

// Writes a run's lists as the next run, at `level`, then merges as `fan_in` asks.
static void store_records(sqlite3 *db, sqlite3_stmt *insert, const records *in, int level, int *next_number) {
    int number = (*next_number)++;
    write_records(insert, in, number);
    add_run(db, insert, number, level, next_number);
}

// MARK: - Merging runs in memory (`pipelined`)

// The runs built since the last merge (copies of their lists), and the merge of the
// last `fan_in` of them, which the writer writes as one run of level 1.
static records group[64], merged_group;
static int group_count;

static void keep_in_group(const records *in) {
    records *copy = &group[group_count++];
    copy->length = 0;
    reserve_records(copy, in->length);
    memcpy(copy->bytes, in->bytes, in->length);
    copy->length = in->length;
    copy->count = in->count;
}

// Merges the group's runs into `merged_group`, key by key, and empties the group.
static void merge_group(void) {
    records *out = &merged_group;
    size_t at[64] = {0}, taken[64] = {0};
    out->length = 0;
    out->count = 0;
    for (;;) {
        int have = 0;
        uint32_t key = 0;
        for (int g = 0; g < group_count; g++) {
            if (taken[g] == group[g].count) continue;
            uint32_t candidate;
            memcpy(&candidate, group[g].bytes + at[g], 4);
            if (!have || candidate < key) { key = candidate; have = 1; }
        }
        if (!have) break;
        const unsigned char *lists[64];
        int lengths[64], list_count = 0;
        size_t total = 0;
        for (int g = 0; g < group_count; g++) {
            if (taken[g] == group[g].count) continue;
            uint32_t candidate, length;
            memcpy(&candidate, group[g].bytes + at[g], 4);
            if (candidate != key) continue;
            memcpy(&length, group[g].bytes + at[g] + 4, 4);
            lists[list_count] = group[g].bytes + at[g] + 8;
            lengths[list_count++] = (int)length;
            total += length + 10;
            at[g] += 8 + length;
            taken[g]++;
        }
        reserve_records(out, 8 + total);
        size_t header = out->length;
        uint32_t length = (uint32_t)merge_lists(lists, lengths, list_count, out->bytes + header + 8);
        memcpy(out->bytes + header, &key, 4);
        memcpy(out->bytes + header + 4, &length, 4);
        out->length += 8 + length;
        out->count++;
    }
    group_count = 0;
}

// The writer's part of a run the second thread has built: in `parallel`, its lists are
// the next run; in `pipelined`, the merged group when this run completed one, else nothing.
// (The group's merge is written before the writer hands over the run after next, and
// the next merge needs `fan_in` >= 2 more runs, so `merged_group` is never overwritten
// while it is read.)
static void store_built(sqlite3 *db, sqlite3_stmt *insert, run *r, int merged, int *next_number) {
    if (!pipelined) {
        store_records(db, insert, &r->out, 0, next_number);
    } else if (merged) {
        store_records(db, insert, &merged_group, 1, next_number);
    }
    r->count = 0;
}

// MARK: - The second thread

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static run *handed, *built;
static int finished, built_merged;  // built_merged: building `built` completed a group (`pipelined`)

static void *builder(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!handed && !finished) pthread_cond_wait(&changed, &lock);
        run *r = handed;
        handed = NULL;
        pthread_mutex_unlock(&lock);
        if (!r) return NULL;
        build_run(r);
        int merged = 0;
        if (pipelined) {
            keep_in_group(&r->out);
            if (group_count == fan_in) { merge_group(); merged = 1; }
        }
        pthread_mutex_lock(&lock);
        built = r;
        built_merged = merged;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
}

// Waits for the run on the second thread, if any, and takes it; `merged` says whether
// building it completed a group, whose merge the writer is to write.
static run *take_built(int *in_flight, int *merged) {
    pthread_mutex_lock(&lock);
    while (*in_flight && !built) pthread_cond_wait(&changed, &lock);
    run *r = built;
    *merged = built_merged;
    built = NULL;
    *in_flight = 0;
    pthread_mutex_unlock(&lock);
    return r;
}

// MARK: - Looking a keyword up

typedef struct { int64_t *ids; size_t count, capacity; } id_list;

static void append_id(id_list *list, int64_t id) {
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 64;
        list->ids = realloc(list->ids, list->capacity * sizeof(int64_t));
        if (!list->ids) fail("out of memory");
    }
    list->ids[list->count++] = id;
}

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

// The list under `key` in a block, or NULL; `*length` gets its bytes.
static const unsigned char *find_entry(const unsigned char *block, int block_length, uint32_t key, int *length) {
    for (int at = 0; at < block_length;) {
        uint32_t entry_key;
        memcpy(&entry_key, block + at, 4);
        at += 4;
        int entry_length = (int)read_varint(block, &at);
        if (entry_key == key) {
            *length = entry_length;
            return block + at;
        }
        at += entry_length;
    }
    return NULL;
}

// The bytes of the lists under `key` in every run, each run's list followed by a 0 (IDs
// are positive, so no delta is 0); NULL, and `*length` past `limit`, when they hold more
// than `limit` bytes.
static const unsigned char *read_key(sqlite3_stmt *select, uint32_t key, int64_t limit, size_t *length) {
    static unsigned char *lists;
    static size_t capacity;
    *length = 0;
    for (int live = 0; live < live_count; live++) {
        sqlite3_bind_int(select, 1, live_number[live]);
        sqlite3_bind_int64(select, 2, key);
        int entry_length;
        const unsigned char *entry = NULL;
        if (sqlite3_step(select) == SQLITE_ROW) {
            entry = find_entry(sqlite3_column_blob(select, 0), sqlite3_column_bytes(select, 0), key, &entry_length);
        }
        if (entry && (int64_t)(*length + entry_length) > limit) {
            sqlite3_reset(select);
            *length = (size_t)limit + 1;
            return NULL;
        }
        if (entry) {
            if (*length + entry_length + 1 > capacity) {
                capacity = 2 * (*length + entry_length + 1);
                lists = realloc(lists, capacity);
                if (!lists) fail("out of memory");
            }
            memcpy(lists + *length, entry, entry_length);
            *length += entry_length;
            lists[(*length)++] = 0;
        }
        sqlite3_reset(select);
    }
    static unsigned char none;
    return lists ? lists : &none;  // no run holds the key: an empty list, not a dense one
}

// About how many favorites hold `key` (its lists' bytes), without reading a long list:
// a block over 4 KiB holds one list alone, and its row's `size` says how long it is.
static int64_t key_size(sqlite3_stmt *measure, uint32_t key) {
    int64_t size = 0;
    for (int live = 0; live < live_count; live++) {
        sqlite3_bind_int(measure, 1, live_number[live]);
        sqlite3_bind_int64(measure, 2, key);
        if (sqlite3_step(measure) == SQLITE_ROW) {
            uint32_t first_key = (uint32_t)sqlite3_column_int64(measure, 0);
            const unsigned char *block = sqlite3_column_blob(measure, 2);
            int entry_length;
            if (!block) {
                if (first_key == key) size += sqlite3_column_int64(measure, 1);
            } else if (find_entry(block, sqlite3_column_bytes(measure, 2), key, &entry_length)) {
                size += entry_length;
            }
        }
        sqlite3_reset(measure);
    }
    return size;
}

static void collect_key(uint32_t key, void *context) {
    id_list *keys = context;
    append_id(keys, key);
}

// The favorites holding `keyword`, through the index; `candidates` gets how many were checked.
static long search(sqlite3 *db, const char *keyword, int favorites, long *candidates) {
    // The keyword's 3-scalar windows are the grams of the keyword without its two padded end grams.
    id_list keys = {0};
    for_each_key((const unsigned char *)keyword, (int)strlen(keyword), collect_key, &keys);
    keys.count -= 2;
    sqlite3_stmt *select, *measure, *by_id;
    if (sqlite3_prepare_v2(db,
            "SELECT block FROM archive_search_runs WHERE run = ?1 AND first_key <= ?2 ORDER BY first_key DESC LIMIT 1",
            -1, &select, NULL)
        || sqlite3_prepare_v2(db,
            "SELECT first_key, size, CASE WHEN size <= 4096 THEN block END FROM archive_search_runs "
            "WHERE run = ?1 AND first_key <= ?2 ORDER BY first_key DESC LIMIT 1", -1, &measure, NULL)
        || sqlite3_prepare_v2(db, "SELECT dish_name, introduction, photo_url, shop_name, category FROM archive_objects WHERE id = ?", -1, &by_id, NULL)) {
        fail(sqlite3_errmsg(db));
    }
    // The windows' sizes first; then the rarest list gives the candidates, and each next
    // one, while at most 16 times as many as the candidates, keeps those it holds
    // (checking a candidate costs about what 16 list entries do); a window over 1/8 of
    // the favorites narrows nothing.
    int64_t sizes[64];
    size_t order[64], windows = keys.count < 64 ? keys.count : 64;
    for (size_t k = 0; k < windows; k++) {
        sizes[k] = key_size(measure, (uint32_t)keys.ids[k]);
        order[k] = k;
        for (size_t m = k; m > 0 && sizes[order[m]] < sizes[order[m - 1]]; m--) {
            size_t swap = order[m]; order[m] = order[m - 1]; order[m - 1] = swap;
        }
    }
    id_list result = {0};
    unsigned char *held = NULL;
    int started = 0;
    for (size_t n = 0; n < windows; n++) {
        size_t k = order[n], length;
        if (sizes[k] > favorites / 8 || (started && sizes[k] > 16 * (int64_t)result.count)) break;
        const unsigned char *lists = read_key(select, (uint32_t)keys.ids[k], favorites / 8, &length);
        if (!lists) break;
        if (!started) {
            int64_t id = 0;
            for (int at = 0; at < (int)length;) {
                uint64_t delta = read_varint(lists, &at);
                if (delta == 0) { id = 0; continue; }
                id += (int64_t)delta;
                append_id(&result, id);
            }
            if (result.count > 1) qsort(result.ids, result.count, sizeof(int64_t), by_value);
            started = 1;
            continue;
        }
        // Each run's list is ascending, as the candidates are: one pass each marks the held ones.
        held = realloc(held, result.count + 1);
        if (!held) fail("out of memory");
        memset(held, 0, result.count + 1);
        size_t i = 0;
        int64_t id = 0;
        for (int at = 0; at < (int)length;) {
            uint64_t delta = read_varint(lists, &at);
            if (delta == 0) { id = 0; i = 0; continue; }
            id += (int64_t)delta;
            while (i < result.count && result.ids[i] < id) i++;
            if (i < result.count && result.ids[i] == id) held[i] = 1;
        }
        size_t kept = 0;
        for (size_t c = 0; c < result.count; c++) if (held[c]) result.ids[kept++] = result.ids[c];
        result.count = kept;
    }
    free(held);
    if (!started) {  // every window is in most favorites: every favorite is a candidate, as in the engine's walk
        sqlite3_stmt *all;
        if (sqlite3_prepare_v2(db, "SELECT id FROM archive_objects ORDER BY id", -1, &all, NULL)) fail(sqlite3_errmsg(db));
        while (sqlite3_step(all) == SQLITE_ROW) append_id(&result, sqlite3_column_int64(all, 0));
        sqlite3_finalize(all);
    }
    long matches = 0;
    for (size_t i = 0; i < result.count; i++) {
        sqlite3_bind_int64(by_id, 1, result.ids[i]);
        if (sqlite3_step(by_id) == SQLITE_ROW) {
            for (int column = 0; column < 5; column++) {
                const char *text = (const char *)sqlite3_column_text(by_id, column);
                if (text && strstr(text, keyword)) { matches++; break; }
            }
        }
        sqlite3_reset(by_id);
    }
    *candidates = (long)result.count;
    free(result.ids);
    free(keys.ids);
    sqlite3_finalize(select);
    sqlite3_finalize(measure);
    sqlite3_finalize(by_id);
    return matches;
}

// MARK: - Arguments and the scratch database

// `text` as a whole decimal number in `minimum...maximum`, or the probe stops naming `what`.
static int whole_number(const char *text, long minimum, long maximum, const char *what) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < minimum || value > maximum) {
        fprintf(stderr, "bulk_index_probe: %s must be a whole number in %ld...%ld, not \"", what, minimum, maximum);
        // The argument is echoed with its control bytes escaped, so it cannot steer the terminal.
        for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
            if (*c < 0x20 || *c == 0x7F) fprintf(stderr, "\\x%02X", *c); else fputc(*c, stderr);
        }
        fputs("\"\n", stderr);
        exit(1);
    }
    return (int)value;
}

// `path` with `suffix`, or the probe stops: a name cut short could name another file.
static void with_suffix(char *buffer, size_t size, const char *path, const char *suffix) {
    int length = snprintf(buffer, size, "%s%s", path, suffix);
    if (length < 0 || (size_t)length >= size) fail("the database path is too long");
}

// Deletes the probe's earlier database at `path` (and its -wal and -shm) before a run,
// after checking it is one: a file that holds no `archive_search_runs` table, such as a
// user's archive given by mistake, is refused and left as it is.
static void remove_scratch_database(const char *path) {
    char wal[4096], shm[4096];
    with_suffix(wal, sizeof wal, path, "-wal");
    with_suffix(shm, sizeof shm, path, "-shm");
    struct stat status;
    if (lstat(path, &status) == 0) {
        if (!S_ISREG(status.st_mode)) fail("DATABASE exists and is not a regular file: refusing to delete it");
        sqlite3 *db = NULL;
        int ours = 0;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
            sqlite3_stmt *probe = NULL;
            if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'archive_search_runs'",
                                   -1, &probe, NULL) == SQLITE_OK) {
                ours = sqlite3_step(probe) == SQLITE_ROW;
            }
            sqlite3_finalize(probe);
        }
        sqlite3_close(db);
        if (!ours) fail("DATABASE exists and is not a database this probe made: refusing to delete it");
        if (remove(path) != 0) fail("cannot delete the probe's earlier database");
    }
    remove(wal);
    remove(shm);
}

// MARK: - The import

int main(int argc, char **argv) {
    if (argc < 3) fail("usage: bulk_index_probe N none|fts5|serial|parallel|pipelined [RUN_SIZE [DATABASE [fixture|varied [FAN_IN]]]]");
    int count = whole_number(argv[1], 1, 100000000, "N");
    const char *mode = argv[2];
    int run_size = argc > 3 ? whole_number(argv[3], 1, 1 << 20, "RUN_SIZE") : 16384;
    const char *path = argc > 4 ? argv[4] : "/tmp/bulk_index_probe.sqlite3";
    if (!*path) fail("DATABASE is empty");
    varied = argc > 5 && strcmp(argv[5], "varied") == 0;
    if (argc > 5 && !varied && strcmp(argv[5], "fixture") != 0) fail("the data are `fixture` or `varied`");
    fan_in = argc > 6 ? whole_number(argv[6], 0, 64, "FAN_IN") : 8;
    if (fan_in == 1) fail("FAN_IN is 0 (never merge) or 2...64");
    pipelined = strcmp(mode, "pipelined") == 0;
    int serial = strcmp(mode, "serial") == 0, parallel = pipelined || strcmp(mode, "parallel") == 0;
    int fts5 = strcmp(mode, "fts5") == 0;
    if (!serial && !parallel && !fts5 && strcmp(mode, "none") != 0) fail("the mode is none, fts5, serial, parallel or pipelined");
    if (pipelined && fan_in < 2) fail("`pipelined` merges FAN_IN (2...64) runs in memory");

    favorite *favorites = calloc(count, sizeof *favorites);
    if (!favorites) fail("out of memory");
    for (int k = 0; k < count; k++) make_favorite(&favorites[k], count - k);  // newest first

    remove_scratch_database(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) fail("cannot open the database");
    if (sqlite3_exec(db,
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
            "CREATE TABLE archive_objects (id INTEGER PRIMARY KEY NOT NULL CHECK (id > 0), photo_url TEXT NOT NULL,"
            " category TEXT NOT NULL, dish_name TEXT NOT NULL CHECK (dish_name <> ''), shop_name TEXT NOT NULL,"
            " introduction TEXT NOT NULL, stored_at INTEGER NOT NULL);"
            "CREATE INDEX archive_objects_by_stored_at ON archive_objects (stored_at DESC, id DESC);"
            "CREATE TABLE archive_search_runs (run INTEGER NOT NULL, first_key INTEGER NOT NULL, size INTEGER NOT NULL, block BLOB NOT NULL,"
            " PRIMARY KEY (run, first_key)) WITHOUT ROWID;"
            "CREATE VIRTUAL TABLE archive_objects_search USING fts5 (photo_url, category, dish_name, shop_name, introduction,"
            " content = 'archive_objects', content_rowid = 'id', detail = none, columnsize = 0, tokenize = 'trigram');"
            "INSERT INTO archive_objects_search (archive_objects_search, rank) VALUES ('hashsize', 8388608);",
            NULL, NULL, NULL) != SQLITE_OK) {
        fail(sqlite3_errmsg(db));
    }
    sqlite3_stmt *upsert, *insert, *fts_insert;
    if (sqlite3_prepare_v2(db,
            "INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING", -1, &upsert, NULL)
        || sqlite3_prepare_v2(db, "INSERT INTO archive_search_runs (run, first_key, size, block) VALUES (?, ?, ?, ?)", -1, &insert, NULL)
        || sqlite3_prepare_v2(db,
            "INSERT INTO archive_objects_search (rowid, photo_url, category, dish_name, shop_name, introduction) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &fts_insert, NULL)) {
        fail(sqlite3_errmsg(db));
    }

    run runs[2];
    init_run(&runs[0], run_size);
    init_run(&runs[1], run_size);
    int current = 0, in_flight = 0, run_number = 0;
    pthread_t thread;
    if (parallel && pthread_create(&thread, NULL, builder, NULL)) fail("cannot start the second thread");

    double start = now();
    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    for (int k = 0; k < count; k++) {
        favorite *f = &favorites[k];
        sqlite3_bind_int64(upsert, 1, f->id);
        for (int field = 0; field < 5; field++) sqlite3_bind_text(upsert, 2 + field, f->text[field], f->length[field], SQLITE_STATIC);
        sqlite3_bind_int64(upsert, 7, f->stored_at);
        if (sqlite3_step(upsert) != SQLITE_DONE) fail(sqlite3_errmsg(db));
        sqlite3_reset(upsert);
        if (!serial && !parallel) continue;
        run *r = &runs[current];
        r->favorites[r->count++] = f;
        if (r->count < run_size) continue;
        if (serial) {
            build_run(r);
            store_records(db, insert, &r->out, 0, &run_number);
            r->count = 0;
            continue;
        }
        int merged;
        run *done = take_built(&in_flight, &merged);
        pthread_mutex_lock(&lock);
        handed = r;
        in_flight = 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        if (done) store_built(db, insert, done, merged, &run_number);
        current ^= 1;
    }
    if (parallel) {
        int merged;
        run *done = take_built(&in_flight, &merged);
        if (done) store_built(db, insert, done, merged, &run_number);
        pthread_mutex_lock(&lock);
        finished = 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        pthread_join(thread, NULL);
    }
    // FTS5 writes a segment whenever a row's ID is lower than the last one's: the engine
    // indexes an export's favorites (newest first) at the end, in ID order, and so does this.
    for (int k = fts5 ? count - 1 : -1; k >= 0; k--) {
        favorite *f = &favorites[k];
        sqlite3_bind_int64(fts_insert, 1, f->id);
        for (int field = 0; field < 5; field++) sqlite3_bind_text(fts_insert, 2 + field, f->text[field], f->length[field], SQLITE_STATIC);
        if (sqlite3_step(fts_insert) != SQLITE_DONE) fail(sqlite3_errmsg(db));
        sqlite3_reset(fts_insert);
    }
    // The last, partial run (the second thread has ended): in `pipelined`, merged with the
    // runs the group still holds, and written as one run of level 0.
    if (runs[current].count > 0) {
        build_run(&runs[current]);
        if (pipelined) keep_in_group(&runs[current].out);
        else store_records(db, insert, &runs[current].out, 0, &run_number);
    }
    if (pipelined && group_count > 0) {
        merge_group();
        store_records(db, insert, &merged_group, 0, &run_number);
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) fail(sqlite3_errmsg(db));
    double seconds = now() - start;
    long long blocks = 0;
    sqlite3_stmt *rows;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM archive_search_runs", -1, &rows, NULL)) fail(sqlite3_errmsg(db));
    if (sqlite3_step(rows) == SQLITE_ROW) blocks = sqlite3_column_int64(rows, 0);
    sqlite3_finalize(rows);
    printf("%s: %d favorites in %.3f s, %.0f rows/s; runs of %d, %d left (fan-in %d, merges %.3f s); %lld index rows (%.2f a favorite)\n",
           mode, count, seconds, count / seconds, run_size, live_count, fan_in, merge_seconds, blocks, (double)blocks / count);

    if (serial || parallel) {
        long checked = 0;
        for (size_t w = 0; w < sizeof keywords / sizeof keywords[0]; w++) {
            long scan = 0;
            for (int k = 0; k < count; k++) {
                for (int field = 0; field < 5; field++) {
                    if (strstr(favorites[k].text[field], keywords[w])) { scan++; break; }
                }
            }
            long candidates = 0, found = 0;
            double best = 1e9;
            for (int round = 0; round < 20; round++) {
                double t = now();
                // One read transaction, as the engine's search runs in one (a snapshot).
                if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) fail(sqlite3_errmsg(db));
                found = search(db, keywords[w], count, &candidates);
                if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) fail(sqlite3_errmsg(db));
                t = now() - t;
                if (t < best) best = t;
            }
            printf("\"%s\": %ld favorites through the index (%ld candidates, best of 20 %.0f us), %ld by the scan%s\n",
                   keywords[w], found, candidates, best * 1e6, scan, found == scan ? "" : " -- MISMATCH");
            if (found != scan) return 1;
            checked += scan;
        }
        if (checked == 0) fail("no keyword is in these favorites: nothing was checked");
    }
    sqlite3_close(db);
    return 0;
}
