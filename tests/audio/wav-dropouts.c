/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wav-dropouts: the dropouts in a sine recorded to a WAV file (the audio
 * tier's detector, sine-dropouts.h), with their positions in time.
 *
 *   wav-dropouts [--freq HZ] [--channel N] [--from BYTE] [--to BYTE] FILE
 *
 * --from and --to take byte offsets in the file, as a guest sees the file
 * grow while QEMU writes it (stat's size before and after a run): the
 * frames between them are analysed. --freq: the sine's frequency, else
 * found from the signal. --channel: 1 (the first) unless given.
 *
 * Prints, each on its own line, "format RATE Hz, C channels, B bit",
 * "frames FROM to TO (S s), file time T0 s to T1 s", "sine F Hz, amplitude
 * A, playing from X s to Y s", one "dropout N at T s (file T' s): KIND"
 * (KIND: "jump", "silence of D ms", "hold of D ms") per dropout (the first
 * 64), and last "dropouts N". Times count from the first frame analysed.
 * Exit status 0 when it could tell, 1 when not (no such file, not a WAV
 * file of 16- or 32-bit PCM, no sine in the frames: "no sine"), 2 for a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sine-dropouts.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: wav-dropouts [--freq HZ] [--channel N] [--from BYTE] [--to BYTE] FILE\n");
	return 2;
}

static int parse_u64(const char *s, unsigned long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' ? -EINVAL : 0;
}

/* A byte offset in the file as a frame of its data, rounded down. */
static uint64_t frame_at(const WavFormat *f, unsigned long long byte)
{
	return byte > f->data_offset ? (byte - f->data_offset) / f->frame_bytes : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "freq", required_argument, NULL, 'f' },
		{ "channel", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long channel = 1, from = 0, to = UINT64_MAX;
	double freq = 0;
	const char *path;
	struct stat st;
	uint8_t *buf;
	WavFormat f;
	SineReport r;
	float *x;
	size_t n;
	uint64_t f0, f1;
	int fd, opt, e;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'f':
			errno = 0;
			freq = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(freq > 0))
				return usage();
			break;
		case 'c':
			if (parse_u64(optarg, &channel) < 0 || channel == 0)
				return usage();
			break;
		case 'F':
			if (parse_u64(optarg, &from) < 0)
				return usage();
			break;
		case 'T':
			if (parse_u64(optarg, &to) < 0)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1)
		return usage();
	path = argv[optind];

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "wav-dropouts: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (st.st_size < 12) {
		fprintf(stderr, "wav-dropouts: %s: not a WAV file\n", path);
		return 1;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "wav-dropouts: %s: %s\n", path, strerror(errno));
		return 1;
	}
	e = wav_parse_header(buf, (size_t)st.st_size, &f);
	if (e < 0) {
		fprintf(stderr, "wav-dropouts: %s: %s\n", path,
			e == -EOPNOTSUPP ? "not 16- or 32-bit integer PCM" : "not a WAV file");
		return 1;
	}
	if (channel > f.channels) {
		fprintf(stderr, "wav-dropouts: %s has %u channel(s), not %llu\n", path, f.channels,
			channel);
		return 1;
	}
	f0 = frame_at(&f, from);
	f1 = to == UINT64_MAX ? UINT64_MAX : frame_at(&f, to);
	e = wav_channel(buf, (size_t)st.st_size, &f, (unsigned)channel - 1, f0, f1, &x, &n);
	munmap(buf, (size_t)st.st_size);
	if (e < 0) {
		fprintf(stderr, "wav-dropouts: %s: %s\n", path, strerror(-e));
		return 1;
	}
	printf("format %u Hz, %u channels, %u bit\n", f.rate, f.channels, f.bits);
	printf("frames %llu to %llu (%.3f s), file time %.3f s to %.3f s\n", (unsigned long long)f0,
	       (unsigned long long)(f0 + n), (double)n / f.rate, (double)f0 / f.rate,
	       (double)(f0 + n) / f.rate);
	e = sine_dropouts(x, n, f.rate, freq, &r);
	free(x);
	if (e < 0) {
		fprintf(stderr, "wav-dropouts: %s: %s\n", path,
			e == -ENODATA ? "no sine in the frames analysed" : strerror(-e));
		printf("no sine\n");
		return 1;
	}
	printf("sine %.2f Hz, amplitude %.3f, playing from %.3f s to %.3f s\n", r.freq, r.amplitude,
	       (double)r.first / f.rate, (double)(r.last + 1) / f.rate);
	for (size_t i = 0; i < r.n_dropouts && i < SINE_DROPOUTS_KEPT; i++) {
		const Dropout *d = &r.dropouts[i];

		printf("dropout %zu at %.6f s (file %.6f s): %s", i + 1, (double)d->frame / f.rate,
		       (double)(f0 + d->frame) / f.rate, dropout_kind_to_string(d->kind));
		if (d->kind != DROPOUT_JUMP)
			printf(" of %.1f ms", 1000.0 * (double)d->frames / f.rate);
		printf("\n");
	}
	printf("dropouts %zu\n", r.n_dropouts);
	return 0;
}
