// The workload tools/realperf/measure runs under perf record: a loop that keeps one CPU busy
// in user space for a fixed wall-clock time, pinned to that CPU, so that cpu-clock fires on
// it at the hrtimer's pace and nowhere else. With a third argument it writes the CPU time
// it used there ("user_s sys_s"), which measure subtracts from perf's children's time to get
// perf's own.
//
//   busyloop SECONDS CPU [RUSAGE_FILE]
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double since(const struct timespec* t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: busyloop SECONDS CPU [RUSAGE_FILE]\n");
        return 2;
    }
    const double seconds = atof(argv[1]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("busyloop: sched_setaffinity");
        return 2;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile unsigned long spins = 0;
    do {
        for (int i = 0; i < 10000; i++)
            spins++;
    } while (since(&t0) < seconds);
    if (argc > 3) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        FILE* f = fopen(argv[3], "w");
        if (!f) {
            perror("busyloop");
            return 2;
        }
        fprintf(f, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
                (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
        fclose(f);
    }
    return 0;
}
