/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for tests/audio/sine-dropouts.c, the audio tier's detector:
 * WAV headers as QEMU writes them (sizes 0 while the file is open), frames
 * read back from 16- and 32-bit files, and sines rounded to 16 bits as a
 * sound card plays them, with gaps put in on purpose: frames cut out (a
 * jump), a silence, an old buffer played again, a held frame; each found
 * once, where it was put, and a clean sine found clean whatever its
 * frequency, amplitude and the silence around it.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "sine-dropouts.h"

#define RATE 48000

/* n frames of a sine at freq Hz and amplitude a, from phase 0, rounded to
 * 16 bits as the card's frames are. */
static float *sine16(size_t n, double freq, double a)
{
	float *x = malloc(n * sizeof(*x));

	ck_assert_ptr_nonnull(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(lrint(a * sin(2 * M_PI * freq * (double)i / RATE) * 32767) /
			       32768.0);
	return x;
}

static SineReport analyse(const float *x, size_t n, double freq)
{
	SineReport r;

	ck_assert_int_eq(sine_dropouts(x, n, RATE, freq, &r), 0);
	return r;
}

/* The dropout near frame at (within 3 ms): its kind is kind. */
static void expect_dropout(const SineReport *r, size_t i, DropoutKind kind, size_t at)
{
	ck_assert_uint_gt(r->n_dropouts, i);
	ck_assert_str_eq(dropout_kind_to_string(r->dropouts[i].kind), dropout_kind_to_string(kind));
	ck_assert_uint_le(r->dropouts[i].frame, at + RATE * 3 / 1000);
	ck_assert_uint_ge(r->dropouts[i].frame + RATE * 3 / 1000, at);
}

START_TEST(test_clean)
{
	static const double freqs[] = { 240, 440, 997, 3000 };
	static const double amps[] = { 0.05, 0.2, 0.5, 0.99 };

	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++)
		for (size_t j = 0; j < sizeof(amps) / sizeof(amps[0]); j++) {
			float *x = sine16(5 * RATE, freqs[i], amps[j]);
			SineReport r = analyse(x, 5 * RATE, 0);

			ck_assert_msg(r.n_dropouts == 0, "%g Hz at %g: %zu dropouts, first at %zu",
				      freqs[i], amps[j], r.n_dropouts, r.dropouts[0].frame);
			ck_assert(fabs(r.freq - freqs[i]) < freqs[i] / 1000);
			ck_assert(fabs(r.amplitude - amps[j]) < 0.001);
			/* the frequency told gives the same answer */
			r = analyse(x, 5 * RATE, freqs[i]);
			ck_assert_uint_eq(r.n_dropouts, 0);
			free(x);
		}
}
END_TEST

START_TEST(test_lead_and_tail)
{
	size_t n = 4 * RATE;
	float *x = sine16(n, 997, 0.5);
	SineReport r;

	/* the stream ran before the client played and after it stopped */
	memset(x, 0, RATE * sizeof(*x));
	memset(x + 3 * RATE, 0, RATE * sizeof(*x));
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 0);
	ck_assert_uint_ge(r.first, RATE);
	ck_assert_uint_le(r.first, RATE + 2);
	ck_assert_uint_lt(r.last, 3 * RATE);
	ck_assert_uint_ge(r.last, 3 * RATE - 3);
	free(x);
}
END_TEST

START_TEST(test_cut)
{
	/* frames lost: 37 frames (not a whole period) cut out at 1 s and
	 * 1024 at 2.5 s, as if the card skipped them */
	size_t n = 4 * RATE;
	float *x = sine16(n + 37 + 1024, 997, 0.5);
	SineReport r;

	memmove(x + RATE, x + RATE + 37, (n + 1024 - RATE) * sizeof(*x));
	memmove(x + RATE * 5 / 2, x + RATE * 5 / 2 + 1024, (n - RATE * 5 / 2) * sizeof(*x));
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 2);
	expect_dropout(&r, 0, DROPOUT_JUMP, RATE);
	expect_dropout(&r, 1, DROPOUT_JUMP, RATE * 5 / 2);
	ck_assert_uint_eq(r.dropouts[0].frames, 0);
	free(x);
}
END_TEST

START_TEST(test_silence)
{
	/* the driver stopped and started again: 21.3 ms of zeros (1024
	 * frames) where the sine went on; the sine resumes at another phase */
	size_t n = 3 * RATE;
	float *x = sine16(n, 240, 0.2);
	SineReport r;

	memset(x + RATE, 0, 1024 * sizeof(*x));
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 1);
	expect_dropout(&r, 0, DROPOUT_SILENCE, RATE);
	ck_assert_uint_ge(r.dropouts[0].frames, 1020);
	ck_assert_uint_le(r.dropouts[0].frames, 1030);
	free(x);
}
END_TEST

START_TEST(test_short_silence)
{
	/* 64 frames of zeros: shorter than the sine's own period, still one */
	size_t n = 2 * RATE;
	float *x = sine16(n, 997, 0.5);
	SineReport r;

	memset(x + RATE / 2, 0, 64 * sizeof(*x));
	r = analyse(x, n, 997);
	ck_assert_uint_eq(r.n_dropouts, 1);
	expect_dropout(&r, 0, DROPOUT_SILENCE, RATE / 2);
	free(x);
}
END_TEST

START_TEST(test_replay)
{
	/* the card played an old part of its ring buffer again: the client
	 * wrote the 3 periods of 256 frames after 1 s too late, so the card
	 * played the 3 before them once more, then the client's next ones.
	 * A break where the old part starts and one where it ends, 16 ms
	 * apart: two dropouts */
	size_t n = 3 * RATE, len = 3 * 256;
	float *x = sine16(n + len, 997, 0.5);
	SineReport r;

	memcpy(x + RATE, x + RATE - len, len * sizeof(*x));
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 2);
	expect_dropout(&r, 0, DROPOUT_JUMP, RATE);
	expect_dropout(&r, 1, DROPOUT_JUMP, RATE + len);
	free(x);
}
END_TEST

START_TEST(test_hold)
{
	/* one frame held for 100 frames */
	size_t n = 2 * RATE, at = RATE + 7;
	float *x = sine16(n, 440, 0.5);
	SineReport r;

	for (size_t i = at + 1; i < at + 100; i++)
		x[i] = x[at];
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 1);
	expect_dropout(&r, 0, DROPOUT_HOLD, at);
	ck_assert_uint_ge(r.dropouts[0].frames, 99);
	free(x);
}
END_TEST

START_TEST(test_many)
{
	/* 100 silences of 5 ms, one every 40 ms: all counted, the first 64
	 * kept, in order */
	size_t n = 5 * RATE;
	float *x = sine16(n, 997, 0.5);
	SineReport r;

	for (size_t i = 0; i < 100; i++)
		memset(x + RATE / 10 + i * RATE / 25, 0, RATE / 200 * sizeof(*x));
	r = analyse(x, n, 0);
	ck_assert_uint_eq(r.n_dropouts, 100);
	for (size_t i = 0; i < SINE_DROPOUTS_KEPT; i++)
		expect_dropout(&r, i, DROPOUT_SILENCE, RATE / 10 + i * RATE / 25);
	free(x);
}
END_TEST

START_TEST(test_no_sine)
{
	float *x = calloc(RATE, sizeof(*x));
	SineReport r;

	ck_assert_int_eq(sine_dropouts(x, RATE, RATE, 0, &r), -ENODATA);
	ck_assert_int_eq(sine_dropouts(x, 0, RATE, 0, &r), -ENODATA);
	/* one blip: no frequency to find */
	x[100] = 0.5f;
	x[101] = 0.4f;
	x[102] = 0.3f;
	x[103] = 0.2f;
	x[104] = 0.1f;
	ck_assert_int_eq(sine_dropouts(x, RATE, RATE, 0, &r), -ENODATA);
	ck_assert_int_eq(sine_dropouts(x, RATE, RATE, RATE, &r), -EINVAL);
	free(x);
}
END_TEST

/* A WAV header as QEMU's wav audiodev writes it while the file is open:
 * the sizes are 0. */
static size_t wav_header(uint8_t *b, unsigned channels, unsigned bits, uint32_t data_bytes)
{
	uint32_t rate = RATE, byte_rate = RATE * channels * bits / 8;
	uint16_t fmt[] = { 1, (uint16_t)channels }, align = (uint16_t)(channels * bits / 8);
	uint16_t b16 = (uint16_t)bits;
	uint32_t fmt_size = 16, riff = 0;

	memcpy(b, "RIFF", 4);
	memcpy(b + 4, &riff, 4);
	memcpy(b + 8, "WAVEfmt ", 8);
	memcpy(b + 16, &fmt_size, 4);
	memcpy(b + 20, fmt, 4);
	memcpy(b + 24, &rate, 4);
	memcpy(b + 28, &byte_rate, 4);
	memcpy(b + 32, &align, 2);
	memcpy(b + 34, &b16, 2);
	memcpy(b + 36, "data", 4);
	memcpy(b + 40, &data_bytes, 4);
	return 44;
}

START_TEST(test_wav_header)
{
	uint8_t b[128] = { 0 };
	WavFormat f;
	uint32_t list_size = 6;

	wav_header(b, 2, 16, 0);
	ck_assert_int_eq(wav_parse_header(b, 44, &f), 0);
	ck_assert_uint_eq(f.rate, RATE);
	ck_assert_uint_eq(f.channels, 2);
	ck_assert_uint_eq(f.bits, 16);
	ck_assert_uint_eq(f.frame_bytes, 4);
	ck_assert_uint_eq(f.data_offset, 44);
	ck_assert_uint_eq(f.data_bytes, 0);
	/* a chunk before the data is passed over */
	wav_header(b, 1, 32, 400);
	memmove(b + 50, b + 36, 8);
	memcpy(b + 36, "LIST", 4);
	memcpy(b + 40, &list_size, 4);
	ck_assert_int_eq(wav_parse_header(b, 58, &f), 0);
	ck_assert_uint_eq(f.data_offset, 58);
	ck_assert_uint_eq(f.data_bytes, 400);
	ck_assert_uint_eq(f.bits, 32);
	/* what is not one */
	ck_assert_int_eq(wav_parse_header(b, 11, &f), -EBADMSG);
	ck_assert_int_eq(wav_parse_header(b, 40, &f), -EBADMSG);
	wav_header(b, 2, 24, 0);
	ck_assert_int_eq(wav_parse_header(b, 44, &f), -EOPNOTSUPP);
	wav_header(b, 2, 16, 0);
	b[20] = 3; /* IEEE float */
	ck_assert_int_eq(wav_parse_header(b, 44, &f), -EOPNOTSUPP);
	memcpy(b, "RIFX", 4);
	ck_assert_int_eq(wav_parse_header(b, 44, &f), -EBADMSG);
}
END_TEST

START_TEST(test_wav_channel)
{
	uint8_t b[44 + 8 * 4];
	int16_t frames[8][2];
	WavFormat f;
	float *x;
	size_t n;

	for (int i = 0; i < 8; i++) {
		frames[i][0] = (int16_t)(1000 * i);
		frames[i][1] = (int16_t)(-16384);
	}
	wav_header(b, 2, 16, 0);
	memcpy(b + 44, frames, sizeof(frames));
	ck_assert_int_eq(wav_parse_header(b, sizeof(b), &f), 0);
	/* data size 0: the frames run to the end of what was read */
	ck_assert_int_eq(wav_channel(b, sizeof(b), &f, 0, 2, UINT64_MAX, &x, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert(x[0] == 2000 / 32768.0f);
	ck_assert(x[5] == 7000 / 32768.0f);
	free(x);
	ck_assert_int_eq(wav_channel(b, sizeof(b), &f, 1, 1, 3, &x, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(x[1] == -0.5f);
	free(x);
	/* a half frame at the end is left out, a range past it clipped */
	ck_assert_int_eq(wav_channel(b, sizeof(b) - 2, &f, 0, 5, 100, &x, &n), 0);
	ck_assert_uint_eq(n, 2);
	free(x);
	ck_assert_int_eq(wav_channel(b, sizeof(b), &f, 2, 0, 8, &x, &n), -EINVAL);
}
END_TEST

int main(void)
{
	return check_run_case("audio-dropouts", "core",
			      CHECK_TESTS(test_clean, test_lead_and_tail, test_cut, test_silence,
					  test_short_silence, test_replay, test_hold, test_many,
					  test_no_sine, test_wav_header, test_wav_channel),
			      NULL, NULL);
}
