// The wake-up latency of a task that lives the way perf record does on its CPU: it sleeps,
// is woken (here by its own timer, every INTERVAL_US), and then works WORK_US of CPU time
// before it sleeps again. The work matters: the fair scheduler (EEVDF since Linux 6.6) keeps a
// sleeper's lag, so a task that used the CPU before it slept waits longer for it after it
// wakes beside a competitor than cyclictest, which does no work between wake-ups, shows.
// Prints the latency from each timer expiry to the task running as a histogram of whole
// microseconds ("US COUNT", non-empty bins; 20000 holds every latency of 20 ms or more).
//
//   wakeprobe SECONDS INTERVAL_US WORK_US CPU
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kMaxUs = 20000 };

static long long clock_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long now_ns(void) {
    return clock_ns(CLOCK_MONOTONIC);
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: wakeprobe SECONDS INTERVAL_US WORK_US CPU\n");
        return 2;
    }
    const long long span = (long long)(atof(argv[1]) * 1e9);
    const long long interval = atoll(argv[2]) * 1000, work = atoll(argv[3]) * 1000;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[4]), &set);
    if (interval <= 0 || work < 0 || sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "wakeprobe: bad interval or work, or cannot pin to CPU %s\n", argv[4]);
        return 2;
    }
    static long histogram[kMaxUs + 1];
    const long long end = now_ns() + span;
    for (long long next = now_ns() + interval; next < end;) {
        const struct timespec t = {next / 1000000000LL, next % 1000000000LL};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        const long long woke = now_ns();
        const long long late = (woke - next) / 1000;
        histogram[late > kMaxUs ? kMaxUs : late < 0 ? 0 : late]++;
        // CPU time, not wall time: preempted, the work takes longer, as perf's does.
        const long long cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu < work) {
        }
        next = now_ns() + interval;
    }
    for (int us = 0; us <= kMaxUs; ++us)
        if (histogram[us]) printf("%d %ld\n", us, histogram[us]);
    return 0;
}
