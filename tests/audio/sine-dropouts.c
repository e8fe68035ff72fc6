/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dropouts in a recorded sine; see sine-dropouts.h and tests/vm/AUDIO.md. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sine-dropouts.h"

/* Below this a frame is silent whatever the sine's amplitude: 8 steps of
 * 16-bit audio. A jump smaller than JUMP_FLOOR is lost in the rounding of
 * 16-bit frames (a steady sine's residual stays within 2 steps). */
#define SILENCE_FLOOR (1.0 / 4096)
#define JUMP_FLOOR (1.0 / 2048)

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int wav_parse_header(const uint8_t *buf, size_t len, WavFormat *ret)
{
	WavFormat f = { 0 };
	bool have_fmt = false;
	size_t pos = 12;

	if (len < 12 || memcmp(buf, "RIFF", 4) != 0 || memcmp(buf + 8, "WAVE", 4) != 0)
		return -EBADMSG;
	while (pos + 8 <= len) {
		const uint8_t *id = buf + pos;
		uint32_t size = le32(buf + pos + 4);

		if (memcmp(id, "fmt ", 4) == 0) {
			unsigned tag;

			if (size < 16 || pos + 8 + 16 > len)
				return -EBADMSG;
			tag = le16(buf + pos + 8);
			f.channels = le16(buf + pos + 10);
			f.rate = le32(buf + pos + 12);
			f.bits = le16(buf + pos + 22);
			/* WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes */
			if (tag == 0xfffe && size >= 40 && pos + 8 + 26 <= len)
				tag = le16(buf + pos + 8 + 24);
			if (tag != 1 || (f.bits != 16 && f.bits != 32) || f.channels == 0 ||
			    f.rate == 0)
				return -EOPNOTSUPP;
			f.frame_bytes = f.channels * f.bits / 8;
			have_fmt = true;
		} else if (memcmp(id, "data", 4) == 0) {
			if (!have_fmt)
				return -EBADMSG;
			f.data_offset = pos + 8;
			/* QEMU writes the sizes when it closes the file: 0 until then */
			f.data_bytes = size == UINT32_MAX ? 0 : size;
			*ret = f;
			return 0;
		}
		pos += 8 + (size_t)size + (size & 1);
	}
	return -EBADMSG;
}

int wav_channel(const uint8_t *buf, size_t len, const WavFormat *f, unsigned channel, uint64_t from,
		uint64_t to, float **ret, size_t *ret_n)
{
	uint64_t end = len, frames;
	float *x;

	if (channel >= f->channels)
		return -EINVAL;
	if (f->data_bytes && f->data_offset + f->data_bytes < end)
		end = f->data_offset + f->data_bytes;
	frames = end > f->data_offset ? (end - f->data_offset) / f->frame_bytes : 0;
	if (to > frames)
		to = frames;
	if (from > to)
		from = to;
	x = malloc(((size_t)(to - from) + 1) * sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (uint64_t i = from; i < to; i++) {
		const uint8_t *p =
			buf + f->data_offset + i * f->frame_bytes + channel * f->bits / 8;

		if (f->bits == 16)
			x[i - from] = (float)(int16_t)le16(p) / 32768.0f;
		else
			x[i - from] = (float)((double)(int32_t)le32(p) / 2147483648.0);
	}
	*ret = x;
	*ret_n = (size_t)(to - from);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The sine's period in frames: the median time between its rising zero
 * crossings, each found between two frames; a dropout makes a few periods
 * wrong, not the median. -ENODATA with fewer than two periods. */
static int sine_period(const float *x, size_t first, size_t last, double *ret)
{
	double *p, prev = -1;
	size_t n = 0;

	p = malloc((last - first + 1) / 2 * sizeof(*p) + sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t k = first + 1; k <= last; k++) {
		double t;

		if (!(x[k - 1] < 0 && x[k] >= 0))
			continue;
		t = (double)(k - 1) + x[k - 1] / (x[k - 1] - x[k]);
		if (prev >= 0)
			p[n++] = t - prev;
		prev = t;
	}
	if (n < 2) {
		free(p);
		return -ENODATA;
	}
	qsort(p, n, sizeof(*p), cmp_double);
	*ret = p[n / 2];
	free(p);
	return 0;
}

/* A stretch of frames that broke the sine, before merging. */
typedef struct Mark {
	size_t start, end; /* [start, end) */
	DropoutKind kind;
} Mark;

typedef struct Marks {
	Mark *m;
	size_t n, size;
} Marks;

static int marks_add(Marks *s, size_t start, size_t end, DropoutKind kind)
{
	if (s->n == s->size) {
		size_t size = s->size ? 2 * s->size : 64;
		Mark *m = realloc(s->m, size * sizeof(*m));

		if (!m)
			return -ENOMEM;
		s->m = m;
		s->size = size;
	}
	s->m[s->n++] = (Mark){ .start = start, .end = end, .kind = kind };
	return 0;
}

static int cmp_mark(const void *a, const void *b)
{
	const Mark *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void report_add(SineReport *r, const Dropout *d)
{
	if (r->n_dropouts < SINE_DROPOUTS_KEPT)
		r->dropouts[r->n_dropouts] = *d;
	r->n_dropouts++;
}

/* Marks closer than gap frames (10 ms: one click to the ear) are one
 * dropout: a silence and the breaks at its two ends, a burst of jumps
 * while a driver recovers. The kind is
 * the strongest seen: silence, then hold, then jump. */
static void marks_merge(Marks *s, size_t gap, SineReport *r)
{
	Dropout d = { 0 };
	size_t end = 0;
	bool open = false;

	if (s->n > 1) /* no marks: s->m may be NULL, which qsort() must not get */
		qsort(s->m, s->n, sizeof(*s->m), cmp_mark);
	for (size_t i = 0; i < s->n; i++) {
		const Mark *m = &s->m[i];

		if (open && m->start <= end + gap) {
			if (m->kind == DROPOUT_SILENCE ||
			    (m->kind == DROPOUT_HOLD && d.kind == DROPOUT_JUMP))
				d.kind = m->kind;
			if (m->kind != DROPOUT_JUMP)
				d.frames += m->end - m->start;
			if (m->end > end)
				end = m->end;
			continue;
		}
		if (open)
			report_add(r, &d);
		d = (Dropout){ .kind = m->kind,
			       .frame = m->start,
			       .frames = m->kind == DROPOUT_JUMP ? 0 : m->end - m->start };
		end = m->end;
		open = true;
	}
	if (open)
		report_add(r, &d);
}

int sine_dropouts(const float *x, size_t n, unsigned rate, double freq, SineReport *ret)
{
	SineReport r = { 0 };
	Marks marks = { 0 };
	double a = 0, period, w, c, silence, jump, quantum = 1.0 / 32768, near0, peak;
	size_t first = n, last = 0, silence_min, hold_min, gap;
	size_t quiet_from = SIZE_MAX, same_from = SIZE_MAX;
	int e;

	for (size_t k = 0; k < n; k++)
		if (fabsf(x[k]) > SILENCE_FLOOR) {
			if (first == n)
				first = k;
			last = k;
		}
	if (first == n || last - first < 4)
		return -ENODATA;
	for (size_t k = first; k <= last; k++)
		if (fabsf(x[k]) > a)
			a = fabsf(x[k]);
	if (freq > 0) {
		if (freq >= rate / 2.0)
			return -EINVAL;
		period = rate / freq;
	} else {
		e = sine_period(x, first, last, &period);
		if (e < 0)
			return e;
		if (period <= 2)
			return -EINVAL;
	}
	w = 2 * M_PI / period;
	c = 2 * cos(w);
	silence = fmax(SILENCE_FLOOR, a / 256);
	jump = fmax(JUMP_FLOOR, a / 64);
	/* How long a steady sine stays silent around its zero crossings, and
	 * on one value around its peaks (16-bit rounding); twice that, and
	 * more than a few frames, is a dropout. */
	near0 = 2 * asin(fmin(1, silence / a)) / w + 1;
	peak = 2 * sqrt(2 * quantum / a) / w + 1;
	silence_min = (size_t)fmax(8, 2 * near0);
	hold_min = (size_t)fmax(4, 2 * peak);
	gap = rate / 100;

	for (size_t k = first + 1; k < last; k++) {
		/* a steady sine obeys x[k+1] = 2 cos(w) x[k] - x[k-1] */
		double res = x[k + 1] - c * x[k] + x[k - 1];

		if (fabs(res) > jump) {
			Mark *m = marks.n ? &marks.m[marks.n - 1] : NULL;

			if (m && m->kind == DROPOUT_JUMP && k <= m->end + gap)
				m->end = k + 2;
			else if ((e = marks_add(&marks, k - 1, k + 2, DROPOUT_JUMP)) < 0)
				goto out;
		}
	}
	for (size_t k = first; k <= last + 1; k++) {
		bool quiet = k <= last && fabsf(x[k]) <= silence;
		bool same = k > first && k <= last && !quiet && x[k] == x[k - 1];

		if (quiet && quiet_from == SIZE_MAX)
			quiet_from = k;
		if (!quiet && quiet_from != SIZE_MAX) {
			if (k - quiet_from > silence_min &&
			    (e = marks_add(&marks, quiet_from, k, DROPOUT_SILENCE)) < 0)
				goto out;
			quiet_from = SIZE_MAX;
		}
		if (same && same_from == SIZE_MAX)
			same_from = k - 1;
		if (!same && same_from != SIZE_MAX) {
			if (k - same_from > hold_min &&
			    (e = marks_add(&marks, same_from, k, DROPOUT_HOLD)) < 0)
				goto out;
			same_from = SIZE_MAX;
		}
	}
	marks_merge(&marks, gap, &r);
	r.freq = rate / period;
	r.amplitude = a;
	r.first = first;
	r.last = last;
	*ret = r;
	e = 0;
out:
	free(marks.m);
	return e;
}

const char *dropout_kind_to_string(DropoutKind k)
{
	static const char *const names[_DROPOUT_KIND_MAX] = {
		[DROPOUT_JUMP] = "jump",
		[DROPOUT_SILENCE] = "silence",
		[DROPOUT_HOLD] = "hold",
	};

	return k >= 0 && k < _DROPOUT_KIND_MAX ? names[k] : NULL;
}
