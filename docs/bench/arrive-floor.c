/*
 * The hardware floor under PsnBenchmark.bitmapArriveInOrder: the same in-order receive step
 * (compare with the expected PSN, check this slot and the next, rewrite this slot's lap, move
 * the base) in C with the base in a register. See docs/performance.md.
 *
 *   gcc -O2 docs/bench/arrive-floor.c -o /tmp/arrive-floor && /tmp/arrive-floor
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define CAP 1024
#define PSN_MASK 0xFFFFFF
#define MARKED (-1)

struct reorder_map {
    int32_t slots[CAP];
    int32_t base;
};

static struct reorder_map map;

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* 1024 in-order arrivals; returns the number consumed (negative values flag a wrong path). */
__attribute__((noinline)) static int arrive_batch(struct reorder_map *m) {
    int consumed = 0;
    int start = m->base;
    int base = m->base;
    for (int i = 0; i < 1024; i++) {
        int psn = (start + i) & PSN_MASK;
        if (psn != base) { consumed -= 100; continue; }
        int j = base & (CAP - 1);
        if (m->slots[j] == MARKED) { consumed -= 1000; continue; }
        if (m->slots[(j + 1) & (CAP - 1)] == MARKED) { consumed -= 10000; continue; }
        m->slots[j] = ((base ^ j) + CAP) & PSN_MASK;
        base = (base + 1) & PSN_MASK;
        consumed++;
    }
    m->base = base;
    return consumed;
}

int main(void) {
    int base = 0xFFFE00;
    map.base = base;
    for (int k = 0; k < CAP; k++) {
        int psn = (base + k) & PSN_MASK;
        map.slots[psn & (CAP - 1)] = psn & ~(CAP - 1);
    }
    long rounds = 300000, consumed = 0;
    double t0 = seconds();
    for (long r = 0; r < rounds; r++) {
        consumed += arrive_batch(&map);
    }
    double t1 = seconds();
    printf("in-order arrive: %.3f ns per PSN (%ld consumed)\n", (t1 - t0) / rounds / 1024 * 1e9, consumed);
    return consumed == rounds * 1024 ? 0 : 1;
}
