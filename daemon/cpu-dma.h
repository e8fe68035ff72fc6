/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [Daemon] CpuDmaLatency= (realtime.conf(5)): realtimed's request to the
 * kernel's CPU latency QoS, /dev/cpu_dma_latency held open while at least
 * one realtime grant is supervised, closed when the last one ends or a
 * reload unsets the key. Driven by the grant table's changes and reloads:
 * nothing polls.
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

/* What realtimectl status shows (bus-props.c: the CpuDmaLatency property). */
typedef struct CpuDmaStatus {
	CpuDmaState state;
	uint64_t usec;	  /* the value held, or to hold; POLICY_INFINITY when unset */
	int error;	  /* the last failure to take hold (-errno), 0 since a success */
	const char *path; /* the file, as long as the request lives */
} CpuDmaStatus;

/* A request on path (not opened yet). -ENOMEM. */
int cpu_dma_new(const char *path, CpuDma **ret);
/* Closes the request, if held, and frees c. NULL-safe; returns NULL. */
CpuDma *cpu_dma_free(CpuDma *c);

/* Holds the request at usec while want, else lets go (closes it). usec
 * POLICY_INFINITY: unset, let go. A held request whose usec changed is
 * rewritten in place. A failure to open or write is logged once (again
 * only after a success or another error) and leaves nothing held; it is
 * tried anew at the next call. Never blocks: the file is opened
 * O_NONBLOCK. */
void cpu_dma_update(CpuDma *c, uint64_t usec, bool want);
void cpu_dma_status(const CpuDma *c, CpuDmaStatus *ret);
const char *cpu_dma_state_to_string(CpuDmaState s);

/* The daemon's request after its policy and grant table: held while a
 * realtime grant is supervised. A no-op without d->cpu_dma (unit tests
 * that do not make one). Called at each change of the table and at each
 * reload (manager.c). */
void cpu_dma_sync(Daemon *d);
/* How many realtime grants the request is held for. */
unsigned cpu_dma_n_grants(Daemon *d);
