// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resolver tests' NSS helper: realtimed-nss's own code (run.h) with
 * the fake directory of fake-directory.h as its lookup, in NSS's place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fake-directory.h"
#include "nss-wire.h"
#include "run.h"

static FakeDirectory *fake;

#define GET(field) FAKE_GET(fake, field)

static int fake_lookup(uid_t uid, PolicyUser **ret)
{
	PolicyUser *u;
	int error;

	__atomic_add_fetch(&fake->calls, 1, __ATOMIC_SEQ_CST);
	if (uid == GET(crash_uid))
		abort(); /* an NSS module that crashes */
	if (uid == GET(send_uid))
		(void)send(NSS_HELPER_FD, fake->send, GET(send_len), MSG_NOSIGNAL);
	while ((GET(hang_all) || uid == GET(hang_uid) || uid == GET(send_uid)) && !GET(released))
		usleep(1000);
	if (uid == GET(slow_uid))
		usleep(GET(slow_usec));
	error = GET(fail_error);
	if (error < 0)
		return error;
	if (uid == GET(fail_uid))
		return -EIO;
	if (uid >= NO_SUCH_UID)
		return -ESRCH;
	u = calloc(1, sizeof(*u));
	if (!u || (fake->name[0] ? !(u->name = strdup(fake->name))
				 : asprintf(&u->name, "u%u", (unsigned)uid) < 0))
		abort();
	u->uid = uid;
	u->gids = calloc(1, sizeof(gid_t));
	if (!u->gids)
		abort();
	u->gids[0] = GET(gid);
	u->n_gids = 1;
	*ret = u;
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = getenv(FAKE_DIRECTORY_ENV);
	int fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;

	/* without its directory, it answers nothing: the test failed already */
	if (fd < 0)
		return EXIT_FAILURE;
	fake = mmap(NULL, sizeof(*fake), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fake == MAP_FAILED)
		return EXIT_FAILURE;
	close(fd);
	nss_helper_run(argc, argv, fake_lookup);
}
