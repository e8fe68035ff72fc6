// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cost of one pam_open_session() with pam_realtime against pam_limits,
 * measured in one process, side by side: real libpam loads each module from
 * a private configuration directory (pam_start_confdir), and only the
 * pam_open_session() call is timed; pam_start/close_session/pam_end are
 * the same for both and left out. Rounds alternate which module goes first
 * so neither gets the warmer caches; the figure is the median of the rounds.
 * Before each session the soft RLIMIT_RTPRIO and RLIMIT_MEMLOCK are set to 0;
 * after it they must equal the hard limits again, or the run fails: the
 * policies must hold a rule that sets them to the hard limits for USER.
 *
 * usage: pam-bench CONFDIR USER SERVICE_A SERVICE_B [ROUNDS [SESSIONS]]
 * Prints the microseconds per session of each service and the ratio A/B.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <security/pam_appl.h>

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	*resp = NULL;
	return PAM_SUCCESS;
}

static const int checked[] = { RLIMIT_RTPRIO, RLIMIT_MEMLOCK };

static int soft_zero(void)
{
	for (size_t i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		struct rlimit rl;

		if (getrlimit(checked[i], &rl) < 0)
			return -1;
		rl.rlim_cur = 0;
		if (setrlimit(checked[i], &rl) < 0)
			return -1;
	}
	return 0;
}

static bool soft_is_hard(void)
{
	for (size_t i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		struct rlimit rl;

		if (getrlimit(checked[i], &rl) < 0 || rl.rlim_cur != rl.rlim_max)
			return false;
	}
	return true;
}

static double now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Mean microseconds of one pam_open_session() over n sessions; < 0 on error. */
static double run(const char *confdir, const char *service, const char *user, int n)
{
	struct pam_conv pc = { conv, NULL };
	double total = 0;

	for (int i = 0; i < n; i++) {
		pam_handle_t *pamh = NULL;
		double t0;
		int r;

		r = pam_start_confdir(service, user, &pc, confdir, &pamh);
		if (r != PAM_SUCCESS) {
			fprintf(stderr, "pam_start_confdir(%s): %s\n", service,
				pam_strerror(pamh, r));
			return -1;
		}
		/* Soft limits to 0 (outside the timing): the session must
		 * raise them back to the rule's values, which proves the
		 * module found the rule and applied it. */
		if (soft_zero() < 0)
			return -1;
		t0 = now_usec();
		r = pam_open_session(pamh, 0);
		total += now_usec() - t0;
		if (r != PAM_SUCCESS) {
			fprintf(stderr, "pam_open_session(%s, %s): %s\n", service, user,
				pam_strerror(pamh, r));
			pam_end(pamh, r);
			return -1;
		}
		if (!soft_is_hard()) {
			fprintf(stderr, "%s did not set RLIMIT_RTPRIO and RLIMIT_MEMLOCK for %s\n",
				service, user);
			pam_end(pamh, r);
			return -1;
		}
		pam_close_session(pamh, 0);
		pam_end(pamh, PAM_SUCCESS);
	}
	return total / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *confdir, *user, *svc[2];
	int rounds = 15, sessions = 200;
	double *t[2];

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: %s CONFDIR USER SERVICE_A SERVICE_B [ROUNDS [SESSIONS]]\n",
			argv[0]);
		return 2;
	}
	confdir = argv[1];
	user = argv[2];
	svc[0] = argv[3];
	svc[1] = argv[4];
	if (argc > 5)
		rounds = atoi(argv[5]);
	if (argc > 6)
		sessions = atoi(argv[6]);
	if (rounds < 1 || sessions < 1) {
		fprintf(stderr, "ROUNDS and SESSIONS must be positive\n");
		return 2;
	}
	t[0] = calloc((size_t)rounds, sizeof(double));
	t[1] = calloc((size_t)rounds, sizeof(double));
	if (!t[0] || !t[1])
		return 1;

	/* Warm up both: page cache, NSS, dlopen of the modules. */
	if (run(confdir, svc[0], user, 10) < 0 || run(confdir, svc[1], user, 10) < 0)
		return 1;

	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < 2; k++) {
			int s = (r + k) % 2;

			t[s][r] = run(confdir, svc[s], user, sessions);
			if (t[s][r] < 0)
				return 1;
		}

	qsort(t[0], (size_t)rounds, sizeof(double), cmp_double);
	qsort(t[1], (size_t)rounds, sizeof(double), cmp_double);
	printf("%-12s %9.1f us per pam_open_session (median of %d rounds of %d; min %.1f, max "
	       "%.1f)\n",
	       svc[0], t[0][rounds / 2], rounds, sessions, t[0][0], t[0][rounds - 1]);
	printf("%-12s %9.1f us per pam_open_session (median of %d rounds of %d; min %.1f, max "
	       "%.1f)\n",
	       svc[1], t[1][rounds / 2], rounds, sessions, t[1][0], t[1][rounds - 1]);
	printf("ratio %s/%s = %.2f\n", svc[0], svc[1], t[0][rounds / 2] / t[1][rounds / 2]);
	free(t[0]);
	free(t[1]);
	return 0;
}
