// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Evaluation: what a loaded policy grants one user. A [User] key beats
 * the [Group] keys, which beat [Default]; among the user's groups the most
 * generous value of each key wins, by the key's merge rule
 * (policy-keys.c, realtime.conf(5) EVALUATION).
 */
#include "policy-internal.h"

/* -1, 0 or 1 as a is below, equal to or above b. */
static int value_compare(PolicyValueType type, const PolicyValue *a, const PolicyValue *b)
{
	switch (type) {
	case POLICY_VALUE_INT:
		return (a->i > b->i) - (a->i < b->i);
	case POLICY_VALUE_UNSIGNED:
		return (a->u > b->u) - (a->u < b->u);
	case POLICY_VALUE_U64:
		return (a->u64 > b->u64) - (a->u64 < b->u64);
	case POLICY_VALUE_BOOL:
		return (int)a->b - (int)b->b;
	case POLICY_VALUE_TEXT:
		break; /* [Daemon] keys only, never merged */
	}
	return 0;
}

static uint64_t value_bits(PolicyValueType type, const PolicyValue *v)
{
	return type == POLICY_VALUE_U64 ? v->u64 : v->u;
}

/* Adds the bits of b to a. */
static void value_union(PolicyValueType type, PolicyValue *a, const PolicyValue *b)
{
	if (type == POLICY_VALUE_U64)
		a->u64 |= b->u64;
	else
		a->u |= b->u;
}

/* Is a more generous than b under the key's merge rule? */
static bool value_more_generous(const PolicyItem *it, const PolicyValue *a, const PolicyValue *b)
{
	switch (it->merge) {
	case POLICY_MERGE_HIGHEST:
		return value_compare(it->type, a, b) > 0;
	case POLICY_MERGE_LOWEST:
		return value_compare(it->type, a, b) < 0;
	case POLICY_MERGE_UNION:
		return (value_bits(it->type, a) | value_bits(it->type, b)) !=
		       value_bits(it->type, b);
	case POLICY_MERGE_FIFO:
		return a->u == POLICY_SCHED_FIFO && b->u != POLICY_SCHED_FIFO;
	}
	return false;
}

/* Merges section values s into acc, keeping the most generous value of each
 * key. Policies and Capabilities are sets: their union is the most generous,
 * and the source named is the section that added the most. */
static void grant_merge_generous(PolicyGrant *acc, const PolicyGrant *s)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		const PolicyItem *it = &policy_keys[k];
		PolicyValue mine, theirs;

		if (!s->set[k])
			continue;
		policy_value_load(it, s, &theirs);
		if (acc->set[k]) {
			policy_value_load(it, acc, &mine);
			if (!value_more_generous(it, &theirs, &mine))
				continue;
			if (it->merge == POLICY_MERGE_UNION)
				value_union(it->type, &theirs, &mine);
		}
		policy_grant_set(acc, k, &theirs, s->source[k]);
	}
}

/* Overlays every key set in over onto base. */
static void grant_overlay(PolicyGrant *base, const PolicyGrant *over)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		PolicyValue v;

		if (!over->set[k])
			continue;
		policy_value_load(&policy_keys[k], over, &v);
		policy_grant_set(base, k, &v, over->source[k]);
	}
	base->covered = base->covered || over->covered;
}

int policy_eval_for_user(const Policy *p, const PolicyUser *u, PolicyGrant *ret)
{
	PolicyGrant result = p->sections[0]->values, groups = {}, users = {};

	result.covered = false;
	policy_values_init(policy_keys, _POLICY_KEY_MAX, &groups);
	policy_values_init(policy_keys, _POLICY_KEY_MAX, &users);
	for (size_t i = 1; i < p->n_sections; i++) {
		const Section *s = p->sections[i];

		if (!policy_section_matches(s->kind, s->numeric, s->id, s->name, u->name, u->uid,
					    u->gids, u->group_names, u->n_gids))
			continue;
		if (s->kind == SECTION_GROUP) {
			grant_merge_generous(&groups, &s->values);
			groups.covered = true;
		} else {
			grant_merge_generous(&users, &s->values);
			users.covered = true;
		}
	}
	grant_overlay(&result, &groups);
	grant_overlay(&result, &users);
	/* CompatPolicy=fifo only holds where Policies= allows fifo. */
	if (result.compat_policy == POLICY_SCHED_FIFO && !(result.policies & POLICY_SCHED_FIFO))
		result.compat_policy = POLICY_SCHED_RR;
	*ret = result;
	return 0;
}
