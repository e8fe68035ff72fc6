/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jack-sine: a JACK client that plays a steady sine on the first two
 * physical playback ports and counts the xruns its server reports, for the
 * audio tier (tests/vm/guest/audio-*.sh): under jackd, and under PipeWire
 * through pw-jack, whose xrun callback follows its driver's xrun count.
 * What the card put out is then read back from QEMU's WAV file by
 * wav-dropouts, which looks for breaks in this sine. libjack.so.0 is
 * opened with dlopen (no development package needed; pw-jack's comes
 * first on its LD_LIBRARY_PATH).
 *
 *   jack-sine [--freq HZ] [--amplitude A] [--seconds S] [--name NAME]
 *
 * Prints, as each happens: "playing RATE Hz, N frames, sine F Hz, to PORT
 * PORT"; "thread TID POLICY PRIORITY" (its process thread, as the kernel
 * reports it once the first buffer was played: "other 0" when no realtime
 * was granted); "xrun N at T ms" (CLOCK_MONOTONIC); and at the end, after
 * S seconds (default: until SIGTERM or SIGINT), "xruns N". Exit status 0,
 * 1 when the server could not be reached or went away, 2 for a usage
 * error, 77 without libjack.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* The calls of <jack/jack.h> used here, as libjack.so.0 exports them. */
typedef struct jack_client jack_client_t;
typedef struct jack_port jack_port_t;
typedef uint32_t jack_nframes_t;
#define JACK_NO_START_SERVER 0x01
#define JACK_PORT_IS_INPUT 0x1
#define JACK_PORT_IS_OUTPUT 0x2
#define JACK_PORT_IS_PHYSICAL 0x4
#define JACK_AUDIO_TYPE "32 bit float mono audio"

static struct Jack {
	jack_client_t *(*client_open)(const char *name, int options, int *status, ...);
	int (*client_close)(jack_client_t *c);
	jack_port_t *(*port_register)(jack_client_t *c, const char *name, const char *type,
				      unsigned long flags, unsigned long size);
	int (*set_process_callback)(jack_client_t *c, int (*f)(jack_nframes_t, void *), void *a);
	int (*set_xrun_callback)(jack_client_t *c, int (*f)(void *), void *a);
	void (*on_shutdown)(jack_client_t *c, void (*f)(void *), void *a);
	int (*activate)(jack_client_t *c);
	const char **(*get_ports)(jack_client_t *c, const char *name, const char *type,
				  unsigned long flags);
	int (*connect)(jack_client_t *c, const char *src, const char *dst);
	const char *(*port_name)(const jack_port_t *p);
	void *(*port_get_buffer)(jack_port_t *p, jack_nframes_t n);
	jack_nframes_t (*get_sample_rate)(jack_client_t *c);
	jack_nframes_t (*get_buffer_size)(jack_client_t *c);
	void (*free)(void *p);
} jack;

static const struct {
	const char *name;
	size_t offset;
} jack_symbols[] = {
	{ "jack_client_open", offsetof(struct Jack, client_open) },
	{ "jack_client_close", offsetof(struct Jack, client_close) },
	{ "jack_port_register", offsetof(struct Jack, port_register) },
	{ "jack_set_process_callback", offsetof(struct Jack, set_process_callback) },
	{ "jack_set_xrun_callback", offsetof(struct Jack, set_xrun_callback) },
	{ "jack_on_shutdown", offsetof(struct Jack, on_shutdown) },
	{ "jack_activate", offsetof(struct Jack, activate) },
	{ "jack_get_ports", offsetof(struct Jack, get_ports) },
	{ "jack_connect", offsetof(struct Jack, connect) },
	{ "jack_port_name", offsetof(struct Jack, port_name) },
	{ "jack_port_get_buffer", offsetof(struct Jack, port_get_buffer) },
	{ "jack_get_sample_rate", offsetof(struct Jack, get_sample_rate) },
	{ "jack_get_buffer_size", offsetof(struct Jack, get_buffer_size) },
	{ "jack_free", offsetof(struct Jack, free) },
};

static jack_port_t *ports[2];
/* The sine as a rotating unit vector (cos, sin): a few multiplications a
 * frame, which TCG runs far faster than sin(). */
static double osc_c = 1, osc_s, step_c, step_s;
static float amplitude = 0.5f;

static atomic_uint xruns;
static atomic_int thread_tid, thread_policy = -1, thread_prio;
static atomic_int server_gone;
static volatile sig_atomic_t stop;

static int process(jack_nframes_t n, void *arg)
{
	float *out[2] = { jack.port_get_buffer(ports[0], n), jack.port_get_buffer(ports[1], n) };
	double norm;

	if (atomic_load_explicit(&thread_policy, memory_order_relaxed) < 0) {
		struct sched_param sp = { 0 };

		sched_getparam(0, &sp);
		atomic_store(&thread_prio, sp.sched_priority);
		atomic_store(&thread_tid, gettid());
		atomic_store(&thread_policy, sched_getscheduler(0) & ~SCHED_RESET_ON_FORK);
	}
	for (jack_nframes_t i = 0; i < n; i++) {
		double c = osc_c * step_c - osc_s * step_s;

		osc_s = osc_s * step_c + osc_c * step_s;
		osc_c = c;
		out[0][i] = amplitude * (float)osc_s;
	}
	memcpy(out[1], out[0], n * sizeof(float));
	/* keep the vector on the unit circle: rounding would drift it */
	norm = sqrt(osc_c * osc_c + osc_s * osc_s);
	osc_c /= norm;
	osc_s /= norm;
	return 0;
}

static int on_xrun(void *arg)
{
	atomic_fetch_add(&xruns, 1);
	return 0;
}

static void on_shutdown(void *arg)
{
	atomic_store(&server_gone, 1);
}

static void on_signal(int sig)
{
	stop = 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *policy_name(int p)
{
	return p == SCHED_FIFO ? "fifo" : p == SCHED_RR ? "rr" : "other";
}

static int usage(void)
{
	fprintf(stderr,
		"usage: jack-sine [--freq HZ] [--amplitude A] [--seconds S] [--name NAME]\n");
	return 2;
}

static int parse_double(const char *s, double min, double max, double *ret)
{
	char *end;

	errno = 0;
	*ret = strtod(s, &end);
	return errno || end == s || *end || !(*ret >= min && *ret <= max) ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "freq", required_argument, NULL, 'f' },
		{ "amplitude", required_argument, NULL, 'a' },
		{ "seconds", required_argument, NULL, 's' },
		{ "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	double freq = 997, amp = 0.5, seconds = 0;
	const char *name = "jack-sine", **phys;
	unsigned reported = 0;
	jack_client_t *c;
	int status = 0, opt, printed_thread = 0;
	long t0;
	void *lib;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_double(optarg, 1, 20000, &freq) < 0)
				return usage();
			break;
		case 'a':
			if (parse_double(optarg, 0.001, 1, &amp) < 0)
				return usage();
			break;
		case 's':
			if (parse_double(optarg, 0, 86400, &seconds) < 0)
				return usage();
			break;
		case 'n':
			name = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();
	amplitude = (float)amp;

	lib = dlopen("libjack.so.0", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "jack-sine: %s\n", dlerror());
		return 77;
	}
	for (size_t i = 0; i < sizeof(jack_symbols) / sizeof(jack_symbols[0]); i++) {
		void *f = dlsym(lib, jack_symbols[i].name);

		if (!f) {
			fprintf(stderr, "jack-sine: libjack.so.0 has no %s\n",
				jack_symbols[i].name);
			return 77;
		}
		memcpy((char *)&jack + jack_symbols[i].offset, &f, sizeof(f));
	}

	c = jack.client_open(name, JACK_NO_START_SERVER, &status);
	if (!c) {
		fprintf(stderr, "jack-sine: cannot reach the JACK server (status 0x%x)\n", status);
		return 1;
	}
	step_c = cos(2 * M_PI * freq / jack.get_sample_rate(c));
	step_s = sin(2 * M_PI * freq / jack.get_sample_rate(c));
	ports[0] = jack.port_register(c, "out_1", JACK_AUDIO_TYPE, JACK_PORT_IS_OUTPUT, 0);
	ports[1] = jack.port_register(c, "out_2", JACK_AUDIO_TYPE, JACK_PORT_IS_OUTPUT, 0);
	if (!ports[0] || !ports[1]) {
		fprintf(stderr, "jack-sine: cannot register its ports\n");
		return 1;
	}
	jack.set_process_callback(c, process, NULL);
	jack.set_xrun_callback(c, on_xrun, NULL);
	jack.on_shutdown(c, on_shutdown, NULL);
	if (jack.activate(c) != 0) {
		fprintf(stderr, "jack-sine: cannot activate\n");
		return 1;
	}
	phys = jack.get_ports(c, NULL, JACK_AUDIO_TYPE, JACK_PORT_IS_PHYSICAL | JACK_PORT_IS_INPUT);
	if (!phys || !phys[0]) {
		fprintf(stderr, "jack-sine: no physical playback port\n");
		return 1;
	}
	for (int i = 0; i < 2 && phys[i]; i++)
		if (jack.connect(c, jack.port_name(ports[i]), phys[i]) != 0) {
			fprintf(stderr, "jack-sine: cannot connect to %s\n", phys[i]);
			return 1;
		}
	printf("playing %u Hz, %u frames, sine %.2f Hz, to %s %s\n", jack.get_sample_rate(c),
	       jack.get_buffer_size(c), freq, phys[0], phys[1] ? phys[1] : "-");
	fflush(stdout);
	jack.free(phys);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = now_ms();
	while (!stop && !atomic_load(&server_gone) &&
	       (seconds == 0 || now_ms() - t0 < (long)(seconds * 1000))) {
		unsigned x = atomic_load(&xruns);

		if (!printed_thread && atomic_load(&thread_policy) >= 0) {
			printf("thread %d %s %d\n", atomic_load(&thread_tid),
			       policy_name(atomic_load(&thread_policy)), atomic_load(&thread_prio));
			printed_thread = 1;
		}
		for (; reported < x; reported++)
			printf("xrun %u at %ld ms\n", reported + 1, now_ms());
		fflush(stdout);
		usleep(20000);
	}
	if (atomic_load(&server_gone)) {
		printf("server gone\n");
		return 1;
	}
	printf("xruns %u\n", atomic_load(&xruns));
	fflush(stdout);
	jack.client_close(c);
	return 0;
}
