// PeakRSS RUNS COMMAND [ARGUMENTS...]: runs COMMAND RUNS times (its output
// discarded) and prints the largest peak resident set of the runs, in KB.
//
// A small C program on purpose: Linux carries the high-water RSS of the process
// that forks into the child's ru_maxrss (a Python parent's 10-14 MB floor hid
// every smaller peak, such as the C peer's), and this one's is about 1 MB.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: PeakRSS RUNS COMMAND [ARGUMENTS...]\n");
        return 64;
    }
    int runs = atoi(argv[1]);
    long largest = 0;
    for (int run = 0; run < runs; run++) {
        pid_t child = fork();
        if (child < 0) { perror("fork"); return 1; }
        if (child == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, STDOUT_FILENO);
            execvp(argv[2], argv + 2);
            perror(argv[2]);
            _exit(127);
        }
        int status = 0;
        struct rusage usage;
        if (wait4(child, &status, 0, &usage) < 0) { perror("wait4"); return 1; }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s failed (status %d)\n", argv[2], status);
            return 1;
        }
        if (usage.ru_maxrss > largest) largest = usage.ru_maxrss;
    }
    printf("%ld\n", largest);
    return 0;
}
