// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sections of a Policy: allocated from a pool that lives as long as
 * the policy (one allocation per block, not three per section), and found
 * through an open-addressing hash index by kind and name or id, so that a
 * policy of thousands of [User] sections loads in linear time
 * (bench/RESULTS.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "policy-internal.h"

static uint64_t section_hash(SectionKind kind, bool numeric, uint32_t id, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)kind ^ ((uint64_t)numeric << 8);

	if (numeric)
		return (h ^ id) * 0x100000001b3ULL;
	for (; name && *name; name++) /* NULL: [Default] */
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h;
}

/* Zeroed memory that lives as long as the policy. */
static void *policy_pool_alloc(Policy *p, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	char **blocks, *b;

	size = (size + align - 1) & ~(align - 1);
	if (p->n_blocks == 0 || size > p->pool_size - p->pool_used) {
		size_t block = size > POLICY_POOL_BLOCK ? size : POLICY_POOL_BLOCK;

		blocks = reallocarray(p->blocks, p->n_blocks + 1, sizeof(char *));
		if (!blocks)
			return NULL;
		p->blocks = blocks;
		b = calloc(1, block);
		if (!b)
			return NULL;
		blocks[p->n_blocks++] = b;
		p->pool_used = 0;
		p->pool_size = block;
	}
	b = p->blocks[p->n_blocks - 1] + p->pool_used;
	p->pool_used += size;
	return b;
}

/* A new section, from the pool; its names live behind the struct. */
Section *policy_section_new(Policy *p, SectionKind kind, const char *section, const char *target)
{
	uint32_t id;
	bool numeric = section_target_id(target, &id);
	size_t ld = strlen(section) + 1, ln = target && !numeric ? strlen(target) + 1 : 0;
	Section *s;
	char *names;

	s = policy_pool_alloc(p, sizeof(Section) + ld + ln);
	if (!s)
		return NULL;
	names = (char *)(s + 1);
	s->kind = kind;
	policy_values_init(policy_keys, _POLICY_KEY_MAX, &s->values);
	s->display = memcpy(names, section, ld);
	s->numeric = numeric;
	s->id = id;
	if (target && !numeric)
		s->name = memcpy(names + ld, target, ln);
	s->hash = section_hash(kind, s->numeric, s->id, s->name);
	return s;
}

static bool section_is(const Section *s, uint64_t hash, SectionKind kind, bool numeric, uint32_t id,
		       const char *name)
{
	return s->hash == hash && s->kind == kind && s->numeric == numeric &&
	       (numeric ? s->id == id : streq(s->name, name));
}

static void index_put(Section **index, size_t n_index, Section *s)
{
	size_t i = s->hash & (n_index - 1);

	while (index[i])
		i = (i + 1) & (n_index - 1);
	index[i] = s;
}

/* Makes room for n sections, the index at most half full. */
int policy_reserve_sections(Policy *p, size_t n)
{
	if (n > p->n_sections_allocated) {
		size_t want = n > 2 * p->n_sections_allocated ? n : 2 * p->n_sections_allocated;
		Section **sections = reallocarray(p->sections, want, sizeof(Section *));

		if (!sections)
			return -ENOMEM;
		p->sections = sections;
		p->n_sections_allocated = want;
	}
	if (2 * n > p->n_index) {
		size_t size = p->n_index ? p->n_index : 64;
		Section **index;

		while (2 * n > size)
			size *= 2;
		index = calloc(size, sizeof(Section *));
		if (!index)
			return -ENOMEM;
		for (size_t i = 1; i < p->n_sections; i++)
			index_put(index, size, p->sections[i]);
		free(p->index);
		p->index = index;
		p->n_index = size;
	}
	return 0;
}

int policy_get_section(Policy *p, const Assignment *a, Section **ret)
{
	Section *s;
	bool numeric;
	uint32_t id;
	uint64_t hash;
	int r;

	if (a->kind == SECTION_DEFAULT) {
		*ret = p->sections[0];
		return 0;
	}
	numeric = section_target_id(a->target, &id);
	hash = section_hash(a->kind, numeric, id, a->target);
	if (p->n_index > 0)
		for (size_t i = hash & (p->n_index - 1); p->index[i];
		     i = (i + 1) & (p->n_index - 1))
			if (section_is(p->index[i], hash, a->kind, numeric, id, a->target)) {
				*ret = p->index[i];
				return 0;
			}
	r = policy_reserve_sections(p, p->n_sections + 1);
	if (r < 0)
		return r;
	s = policy_section_new(p, a->kind, a->section, a->target);
	if (!s)
		return -ENOMEM;
	p->sections[p->n_sections++] = s;
	index_put(p->index, p->n_index, s);
	*ret = s;
	return 0;
}
