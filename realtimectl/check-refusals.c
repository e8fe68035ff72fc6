// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * realtimectl check's "refusals": what realtimed refused the checked user
 * in the last hour, each with its reason, and what to do about it
 * (ListRefusals through the context's refusals_query, so a unit test
 * gives the answer). The question a user asks after "Failed to make
 * thread realtime" in PipeWire's log.
 */
#include <string.h>

#include "ctl-check.h"
#include "time-util.h"

#define REFUSALS_WINDOW_USEC (3600ULL * 1000000ULL)

void check_refusals(const CheckContext *c, CheckResult *r)
{
	const char *user = c->user ?: "the user";
	char value[CHECK_VALUE_MAX], before[CHECK_HINT_MAX / 2] = "";
	uint64_t now = now_usec(CLOCK_REALTIME);
	CheckRefusals q = {};
	int k;

	if (!c->refusals_query) {
		check_set(r, CHECK_SKIP, "", "realtimectl was built without D-Bus support");
		return;
	}
	k = c->refusals_query(c->uid, now > REFUSALS_WINDOW_USEC ? now - REFUSALS_WINDOW_USEC : 0,
			      &q);
	if (k == -EHOSTDOWN) {
		check_set(r, CHECK_SKIP, "not running",
			  "realtimed is not running: no refusals to look at");
		return;
	}
	if (k == -EACCES) {
		check_set(r, CHECK_SKIP, "not allowed", "only %s and root may see %s's refusals",
			  user, user);
		return;
	}
	if (k == -EOPNOTSUPP) {
		check_set(r, CHECK_SKIP, "not kept",
			  "the realtimed running keeps no refusals (it is older than realtimectl)");
		return;
	}
	if (k < 0) {
		check_skip_errno(r, "realtimed's refusals", k);
		return;
	}
	if (q.n == 0 || q.n_shown == 0) {
		check_set(r, CHECK_OK, "refused=0",
			  "realtimed refused no request of %s in the last hour", user);
		return;
	}
	snprintf(value, sizeof(value), "refused=%zu", q.n);
	for (size_t i = 0; i < q.n_shown; i++)
		strbuf_append(value, sizeof(value), "%s%s", i ? " | " : ": ", q.shown[i]);
	check_set(r, CHECK_WARN, value,
		  "%zu request%s of %s refused in the last hour; the last: %s", q.n,
		  q.n == 1 ? "" : "s", user, q.shown[q.n_shown - 1]);
	/* the hint names the fix, and the ones before the last, so the text
	 * output shows each with its reason too */
	for (size_t i = 0; i + 1 < q.n_shown; i++)
		strbuf_append(before, sizeof(before), "%s%s", i ? "; " : " (before: ", q.shown[i]);
	if (before[0])
		strbuf_append(before, sizeof(before), ")");
	check_hint(r, "%s%s; 'realtimectl status --refused' lists each refusal with its reason",
		   q.fix, before);
}
