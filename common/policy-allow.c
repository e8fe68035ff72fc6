// SPDX-License-Identifier: LGPL-2.1-or-later
/* The grant decision and its reason; see policy-allow.h. */
#include <stdio.h>

#include "macro.h"
#include "policy-allow.h"
#include "string-table.h"

static const char *const kind_names[_POLICY_GRANT_KIND_MAX] = {
	[POLICY_GRANT_FIFO] = "fifo",
	[POLICY_GRANT_RR] = "rr",
	[POLICY_GRANT_NICE] = "nice",
};

const char *policy_grant_kind_to_string(PolicyGrantKind k)
{
	return string_table_lookup(kind_names, ELEMENTSOF(kind_names), k);
}

PolicyGrantKind policy_grant_kind_from_string(const char *s)
{
	return string_table_find(kind_names, ELEMENTSOF(kind_names), s);
}

static int refuse(const PolicyGrant *g, PolicyGrantKind kind, int value, PolicyRefusalReason reason,
		  PolicyKey key, int limit, PolicyRefusal *ret)
{
	if (ret)
		*ret = (PolicyRefusal){
			.reason = reason,
			.kind = kind,
			.value = value,
			.key = key,
			.limit = limit,
			.source = key >= 0 ? &g->source[key] : NULL,
		};
	return reason == POLICY_REFUSAL_RANGE ? -EINVAL : -EPERM;
}

int policy_grant_allows(const PolicyGrant *g, PolicyGrantKind kind, int value,
			PolicyRefusal *ret_refusal)
{
	unsigned bit;

	switch (kind) {
	case POLICY_GRANT_NICE:
		if (value < -20 || value > 19)
			return refuse(g, kind, value, POLICY_REFUSAL_RANGE, _POLICY_KEY_INVALID, 0,
				      ret_refusal);
		if (!g->set[POLICY_KEY_NICE])
			return refuse(g, kind, value, POLICY_REFUSAL_NO_NICE, POLICY_KEY_NICE, 0,
				      ret_refusal);
		if (value < g->nice)
			return refuse(g, kind, value, POLICY_REFUSAL_NICE, POLICY_KEY_NICE, g->nice,
				      ret_refusal);
		return 0;
	case POLICY_GRANT_FIFO:
	case POLICY_GRANT_RR:
		bit = kind == POLICY_GRANT_FIFO ? POLICY_SCHED_FIFO : POLICY_SCHED_RR;
		if (value < 1 || value > 99)
			return refuse(g, kind, value, POLICY_REFUSAL_RANGE, _POLICY_KEY_INVALID, 0,
				      ret_refusal);
		if (!g->set[POLICY_KEY_REALTIME_PRIORITY] || g->realtime_priority <= 0)
			return refuse(g, kind, value, POLICY_REFUSAL_NO_REALTIME,
				      POLICY_KEY_REALTIME_PRIORITY, 0, ret_refusal);
		if (!g->set[POLICY_KEY_POLICIES] || !(g->policies & bit))
			return refuse(g, kind, value, POLICY_REFUSAL_SCHED_POLICY,
				      POLICY_KEY_POLICIES, 0, ret_refusal);
		if (value > g->realtime_priority)
			return refuse(g, kind, value, POLICY_REFUSAL_PRIORITY,
				      POLICY_KEY_REALTIME_PRIORITY, g->realtime_priority,
				      ret_refusal);
		return 0;
	case _POLICY_GRANT_KIND_MAX:
	case _POLICY_GRANT_KIND_INVALID:
		break;
	}
	return refuse(g, kind, value, POLICY_REFUSAL_RANGE, _POLICY_KEY_INVALID, 0, ret_refusal);
}

void policy_source_format(const PolicySource *s, PolicyKey k, char *buf, size_t size)
{
	if (!s || !s->file)
		snprintf(buf, size, "no policy file sets %s=", policy_key_to_string(k));
	else
		snprintf(buf, size, "%s:%u", s->file, s->line);
}

int policy_refusal_format(const PolicyRefusal *r, const char *user, char *buf, size_t size)
{
	const char *kind = policy_grant_kind_to_string(r->kind);
	char src[300];
	int l = -1;

	if (size == 0)
		return -ENOBUFS;
	policy_source_format(r->source, r->key, src, sizeof(src));
	switch (r->reason) {
	case POLICY_REFUSAL_RANGE:
		if (r->kind == POLICY_GRANT_NICE)
			l = snprintf(buf, size, "nice level %d is out of range -20..19", r->value);
		else if (kind)
			l = snprintf(buf, size, "priority %d is out of range 1..99", r->value);
		else
			l = snprintf(buf, size, "unknown kind of grant %d", (int)r->kind);
		break;
	case POLICY_REFUSAL_NO_REALTIME:
		l = snprintf(buf, size, "realtime scheduling is not allowed for user %s (%s)", user,
			     src);
		break;
	case POLICY_REFUSAL_SCHED_POLICY:
		l = snprintf(buf, size, "policy %s is not allowed for user %s (%s)", kind, user,
			     src);
		break;
	case POLICY_REFUSAL_PRIORITY:
		l = snprintf(buf, size, "priority %d exceeds the limit %d for user %s (%s)",
			     r->value, r->limit, user, src);
		break;
	case POLICY_REFUSAL_NO_NICE:
		l = snprintf(buf, size, "nice level %d is not allowed for user %s (%s)", r->value,
			     user, src);
		break;
	case POLICY_REFUSAL_NICE:
		l = snprintf(buf, size, "nice level %d is below the limit %d for user %s (%s)",
			     r->value, r->limit, user, src);
		break;
	case _POLICY_REFUSAL_MAX:
	case _POLICY_REFUSAL_INVALID:
		l = snprintf(buf, size, "refused");
		break;
	}
	return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
}

bool policy_grant_needs_polkit(const PolicyGrant *g, const PolicyDaemon *pd)
{
	return !g->covered && pd->polkit;
}
