// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu-dma.h"
#include "log.h"
#include "macro.h"
#include "string-table.h"

struct CpuDma {
	char *path;
	int fd;		  /* the open request, or -EBADF: none held */
	uint64_t usec;	  /* what is held (written to fd) or to be; POLICY_INFINITY: unset */
	bool want;	  /* a grant wants it */
	int logged_error; /* the failure logged last, 0 since a success */
};

int cpu_dma_new(const char *path, CpuDma **ret)
{
	CpuDma *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->path = strdup(path);
	if (!c->path) {
		free(c);
		return -ENOMEM;
	}
	c->fd = -EBADF;
	c->usec = POLICY_INFINITY;
	*ret = c;
	return 0;
}

CpuDma *cpu_dma_free(CpuDma *c)
{
	if (!c)
		return NULL;
	safe_close(c->fd);
	free(c->path);
	free(c);
	return NULL;
}

/* Writes usec as the binary s32 the kernel takes; on failure nothing is held. */
static int cpu_dma_hold(CpuDma *c, uint64_t usec)
{
	int32_t v = (int32_t)usec; /* the parser keeps it to 1 s */
	ssize_t n;

	if (c->fd < 0) {
		/* O_NONBLOCK: a FIFO in its place must not stop the loop */
		c->fd = open(c->path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (c->fd < 0) {
			c->fd = -EBADF;
			return -errno;
		}
	}
	n = write(c->fd, &v, sizeof(v));
	if (n == (ssize_t)sizeof(v))
		return 0;
	/* a request of unknown value is no request to keep */
	c->fd = safe_close(c->fd);
	return n < 0 ? -errno : -EIO;
}

void cpu_dma_update(CpuDma *c, uint64_t usec, bool want)
{
	bool held = c->fd >= 0 && c->usec == usec;
	int r;

	c->usec = usec;
	c->want = want;
	if (usec == POLICY_INFINITY || !want) {
		if (c->fd >= 0)
			log_debug("Released %s (no realtime grant left, or CpuDmaLatency= unset)",
				  c->path);
		c->fd = safe_close(c->fd);
		return;
	}
	if (held)
		return;
	r = cpu_dma_hold(c, usec);
	if (r < 0) {
		if (r != c->logged_error)
			log_error_errno(r,
					"Failed to hold %s at %llu us for the realtime grants "
					"([Daemon] CpuDmaLatency=): %m; CPUs may enter deep "
					"C-states meanwhile (grants are not affected)",
					c->path, (unsigned long long)usec);
		c->logged_error = r;
		return;
	}
	if (c->logged_error)
		log_info("Holding %s at %llu us again", c->path, (unsigned long long)usec);
	else
		log_debug("Holding %s at %llu us while realtime grants are supervised", c->path,
			  (unsigned long long)usec);
	c->logged_error = 0;
}

void cpu_dma_status(const CpuDma *c, CpuDmaStatus *ret)
{
	CpuDmaState s;

	if (c->usec == POLICY_INFINITY)
		s = CPU_DMA_UNSET;
	else if (c->fd >= 0)
		s = CPU_DMA_HELD;
	else if (c->want)
		s = CPU_DMA_FAILED;
	else
		s = CPU_DMA_RELEASED;
	*ret = (CpuDmaStatus){
		.state = s, .usec = c->usec, .error = c->logged_error, .path = c->path
	};
}

static const char *const state_names[_CPU_DMA_STATE_MAX] = {
	[CPU_DMA_UNSET] = "unset",
	[CPU_DMA_RELEASED] = "released",
	[CPU_DMA_HELD] = "held",
	[CPU_DMA_FAILED] = "failed",
};

const char *cpu_dma_state_to_string(CpuDmaState s)
{
	return string_table_lookup(state_names, ELEMENTSOF(state_names), s);
}

unsigned cpu_dma_n_grants(Daemon *d)
{
	unsigned n = 0;

	if (!d->grants)
		return 0;
	GRANT_TABLE_FOREACH(p, g, d->grants) {
		if (g->kind != POLICY_GRANT_NICE)
			n++;
	}
	return n;
}

void cpu_dma_sync(Daemon *d)
{
	uint64_t usec;

	if (!d->cpu_dma)
		return;
	usec = policy_daemon(d->policy)->cpu_dma_latency_usec;
	cpu_dma_update(d->cpu_dma, usec, usec != POLICY_INFINITY && cpu_dma_n_grants(d) > 0);
}
