/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [Daemon] CpuDmaLatency=: /dev/cpu_dma_latency held open while a realtime
 * grant is supervised. Driven by the grant table's changes and reloads.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon.h"

typedef struct CpuDma CpuDma;

typedef enum CpuDmaState {
	CPU_DMA_UNSET,	  /* CpuDmaLatency= unset: the device is never opened */
	CPU_DMA_RELEASED, /* set, but no realtime grant is supervised */
	CPU_DMA_HELD,	  /* the request is in force */
	CPU_DMA_FAILED,	  /* a grant is supervised, but the request could not be made */
	_CPU_DMA_STATE_MAX,
	_CPU_DMA_STATE_INVALID = -EINVAL,
} CpuDmaState;

/* The CpuDmaLatency property. */
typedef struct CpuDmaStatus {
	CpuDmaState state;
	uint64_t usec;	  /* the value held, or to hold; POLICY_INFINITY when unset */
	int error;	  /* the last failure to take hold (-errno), 0 since a success */
	const char *path; /* the file, as long as the request lives */
} CpuDmaStatus;

/* A request on path, not opened yet. */
int cpu_dma_new(const char *path, CpuDma **ret);
CpuDma *cpu_dma_free(CpuDma *c);

/* Holds the request at usec while want and usec is not POLICY_INFINITY, else
 * closes it. A failure is logged once, holds nothing and is tried again at
 * the next call. Never blocks. */
void cpu_dma_update(CpuDma *c, uint64_t usec, bool want);
void cpu_dma_status(const CpuDma *c, CpuDmaStatus *ret);
const char *cpu_dma_state_to_string(CpuDmaState s);

/* Updates the request after the policy and grant table; no-op without one. */
void cpu_dma_sync(Daemon *d);
/* How many realtime (not nice) grants the request is held for. */
unsigned cpu_dma_n_grants(Daemon *d);
