/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dropouts in a recorded sine: the audio tier's one detector (the command
 * wav-dropouts, tests/vm/guest/audio-*.sh, bench/RESULTS.md's tables). A
 * test plays a steady sine through a real driver; QEMU writes what the
 * sound card put out to a WAV file; whatever the guest failed to deliver
 * in time shows there as a break in the sine: a jump of its phase (frames
 * missing, or an old part of the ring buffer played again), a run of
 * silent frames (the stream stopped and restarted, or was filled with
 * zeros), or a run of one repeated frame (a held sample). How the
 * detector finds each is in tests/vm/AUDIO.md; unit-tested in
 * tests/unit/test-audio-dropouts.c on sines with gaps put in on purpose.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* What a WAV file's header says. A file QEMU is still writing says
 * data_bytes 0 (the sizes are written when it closes): the data then runs
 * to the end of the file, which wav_parse_header() cannot know. */
typedef struct WavFormat {
	unsigned rate;
	unsigned channels;
	unsigned bits;	      /* 16 or 32, integer PCM */
	uint64_t data_offset; /* where the first frame starts */
	uint64_t data_bytes;  /* as the header says; 0 while being written */
	unsigned frame_bytes; /* channels * bits / 8 */
} WavFormat;

/* Parses the RIFF header in buf (the file's first len bytes). -EBADMSG
 * for a file that is not RIFF/WAVE or has no fmt or data chunk in buf,
 * -EOPNOTSUPP for a format other than 16- or 32-bit integer PCM. */
int wav_parse_header(const uint8_t *buf, size_t len, WavFormat *ret);

/* One channel of frames [from, to) of the data (clipped to the frames in
 * len bytes of the file), as numbers in [-1, 1). *ret_n frames; *ret
 * malloc()ed. -EINVAL for a channel the file does not have. */
int wav_channel(const uint8_t *buf, size_t len, const WavFormat *f, unsigned channel, uint64_t from,
		uint64_t to, float **ret, size_t *ret_n);

typedef enum DropoutKind {
	DROPOUT_JUMP,	 /* the sine's phase broke off */
	DROPOUT_SILENCE, /* a run of silent frames where the sine played */
	DROPOUT_HOLD,	 /* a run of one frame repeated */
	_DROPOUT_KIND_MAX,
} DropoutKind;

typedef struct Dropout {
	DropoutKind kind;
	size_t frame;  /* where it starts, from the first frame analysed */
	size_t frames; /* how long the silence or hold lasted; 0 for a jump */
} Dropout;

/* Keeps the first ones; the count goes on. */
#define SINE_DROPOUTS_KEPT 64

typedef struct SineReport {
	double freq;	  /* Hz: the one asked, or found */
	double amplitude; /* of the sine, full scale 1 */
	size_t first;	  /* the first and last frame where the sine plays: */
	size_t last;	  /* the silence before and after is no dropout */
	size_t n_dropouts;
	Dropout dropouts[SINE_DROPOUTS_KEPT];
} SineReport;

/* Finds the dropouts in x[0, n), a sine at freq Hz (0: found from the
 * signal itself) recorded at rate Hz. -ENODATA when x holds no signal (or
 * too little of it to find its frequency), -EINVAL for a frequency the
 * rate cannot carry. */
int sine_dropouts(const float *x, size_t n, unsigned rate, double freq, SineReport *ret);

/* "jump", "silence", "hold". */
const char *dropout_kind_to_string(DropoutKind k);
