/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the bus objects' method tables (daemon/bus-dispatch.h):
 * the introspection XML of each object (org.realtimed.Realtime1.xml, and
 * bus-rtkit.c's) lists exactly the methods its tables hold, with the same
 * input signatures, for its own interface and for Properties, and
 * Introspect; and each table entry is whole (a handler, a refusal text
 * where a manage check may refuse, a uid first where the caller may be
 * that user).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "bus-dispatch.h"
#include "bus-names.h"
#include "bus-native.h"
#include "bus-props.h"
#include "bus-rtkit.h"
#include "check-main.h"
#include "macro.h"
#include "request.h"

#define XML_METHODS_MAX 32

typedef struct XmlMethod {
	char name[64];
	char in[32]; /* the input signature */
} XmlMethod;

/* The value of attribute attr in the tag [tag, end), or "" (into buf). */
static const char *xml_attr(const char *tag, const char *end, const char *attr, char *buf,
			    size_t size)
{
	char needle[64];
	const char *p, *q;

	snprintf(needle, sizeof(needle), " %s=\"", attr);
	buf[0] = 0;
	p = strstr(tag, needle);
	if (!p || p >= end)
		return buf;
	p += strlen(needle);
	q = strchr(p, '"');
	ck_assert_ptr_nonnull(q);
	snprintf(buf, size, "%.*s", (int)(q - p), p);
	return buf;
}

/* The methods of interface iface in xml; returns how many. */
static size_t xml_methods(const char *xml, const char *iface, XmlMethod *ret)
{
	char needle[128], buf[64];
	const char *p, *end;
	size_t n = 0;

	snprintf(needle, sizeof(needle), "<interface name=\"%s\">", iface);
	p = strstr(xml, needle);
	ck_assert_msg(p, "the XML has no interface %s", iface);
	end = strstr(p, "</interface>");
	ck_assert_ptr_nonnull(end);
	while ((p = strstr(p, "<method ")) && p < end) {
		const char *tag_end = strchr(p, '>');
		/* <method name="X"/> has no arguments */
		const char *m_end = tag_end[-1] == '/' ? tag_end : strstr(p, "</method>");
		const char *a = p;

		ck_assert_uint_lt(n, XML_METHODS_MAX);
		xml_attr(p, tag_end, "name", ret[n].name, sizeof(ret[n].name));
		ret[n].in[0] = 0;
		while ((a = strstr(a + 1, "<arg ")) && a < m_end) {
			const char *a_end = strchr(a, '>');

			/* a method's argument is "in" unless it says otherwise */
			if (!streq(xml_attr(a, a_end, "direction", buf, sizeof(buf)), "out"))
				strncat(ret[n].in, xml_attr(a, a_end, "type", buf, sizeof(buf)),
					sizeof(ret[n].in) - strlen(ret[n].in) - 1);
		}
		n++;
		p = m_end;
	}
	return n;
}

/* The XML's methods of iface and table[0..n) are the same, name and
 * input signature. */
static void check_agree(const char *what, const char *xml, const char *iface,
			const BusMethod *table, size_t n)
{
	XmlMethod methods[XML_METHODS_MAX];
	size_t n_xml = xml_methods(xml, iface, methods);

	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t j = 0; j < n_xml; j++)
			if (streq(methods[j].name, table[i].name)) {
				ck_assert_msg(streq(methods[j].in, table[i].signature),
					      "%s: %s.%s takes (%s) in the XML, (%s) in the table",
					      what, iface, table[i].name, methods[j].in,
					      table[i].signature);
				found = true;
			}
		ck_assert_msg(found, "%s: the XML lacks %s.%s", what, iface, table[i].name);
	}
	for (size_t j = 0; j < n_xml; j++)
		ck_assert_msg(bus_method_find(table, n, methods[j].name),
			      "%s: %s.%s is in the XML, not in the table", what, iface,
			      methods[j].name);
}

static void check_object(const char *what, const BusObject *o)
{
	XmlMethod methods[XML_METHODS_MAX];
	size_t n;

	check_agree(what, o->introspection_xml, o->iface, o->methods, o->n_methods);
	check_agree(what, o->introspection_xml, DBUS_INTERFACE_PROPERTIES, bus_properties_methods,
		    bus_properties_n_methods);
	n = xml_methods(o->introspection_xml, DBUS_INTERFACE_INTROSPECTABLE, methods);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(methods[0].name, "Introspect");
	ck_assert_str_eq(methods[0].in, "");
}

START_TEST(test_xml_agrees_with_tables)
{
	check_object("native", &bus_native_object);
	check_object("rtkit", &bus_rtkit_object);
	ck_assert_str_eq(bus_native_object.iface, NATIVE_IFACE);
	ck_assert_str_eq(bus_rtkit_object.iface, RTKIT_IFACE);
}
END_TEST

static void check_table(const BusMethod *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const BusMethod *m = &table[i];

		ck_assert_ptr_nonnull(m->run);
		ck_assert_ptr_nonnull(m->signature);
		ck_assert_ptr_eq(bus_method_find(table, n, m->name), m); /* no name twice */
		ck_assert_int_ge(m->caller, 0);
		ck_assert_int_lt(m->caller, _BUS_CALLER_MAX);
		if (m->caller == BUS_CALLER_MANAGE || m->caller == BUS_CALLER_SELF_OR_MANAGE)
			ck_assert_msg(m->what, "%s refuses without saying what needs manage",
				      m->name);
		if (m->caller == BUS_CALLER_SELF_OR_MANAGE)
			ck_assert_msg(m->signature[0] == 'u', "%s: the uid comes first", m->name);
	}
}

START_TEST(test_tables_whole)
{
	check_table(bus_native_object.methods, bus_native_object.n_methods);
	check_table(bus_rtkit_object.methods, bus_rtkit_object.n_methods);
	check_table(bus_properties_methods, bus_properties_n_methods);
	ck_assert_ptr_null(bus_method_find(bus_rtkit_object.methods, bus_rtkit_object.n_methods,
					   "NoSuchMethod"));
}
END_TEST

/* The one table of answers: a name for every code in each flavour,
 * rtkit's three for its clients, a failure of realtimed as Failed. */
START_TEST(test_error_names)
{
	ck_assert_str_eq(bus_error_name(REQUEST_E_NO_SUCH_GRANT, FLAVOUR_NATIVE),
			 "org.realtimed.Realtime1.Error.NoSuchGrant");
	ck_assert_str_eq(bus_error_name(REQUEST_E_POLICY_DENIED, FLAVOUR_RTKIT),
			 DBUS_ERROR_ACCESS_DENIED);
	ck_assert_str_eq(bus_error_name(-EIO, FLAVOUR_NATIVE),
			 "org.realtimed.Realtime1.Error.Failed");
	ck_assert_str_eq(bus_error_name(-ENOMEM, FLAVOUR_RTKIT), DBUS_ERROR_FAILED);
	for (int e = _REQUEST_E_SUCCESS + 1; e < _REQUEST_E_MAX; e++) {
		const char *rtkit = bus_error_name(e, FLAVOUR_RTKIT);

		ck_assert_ptr_nonnull(bus_error_name(e, FLAVOUR_NATIVE));
		ck_assert_msg(streq(rtkit, DBUS_ERROR_ACCESS_DENIED) ||
				      streq(rtkit, DBUS_ERROR_FAILED) ||
				      streq(rtkit, DBUS_ERROR_NO_MEMORY) ||
				      streq(rtkit, DBUS_ERROR_INVALID_ARGS),
			      "code %d: %s", e, rtkit);
	}
}
END_TEST

/* realtimectl turns each native error name into an exit status and a
 * hint (realtimectl/bus-error.c): it must know every name realtimed
 * answers with. The native ones it takes from NATIVE_ERRORS, as
 * bus-dispatch.c does (common/bus-names.h). */
START_TEST(test_error_names_known_to_realtimectl)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[512], text[16384], needle[128];
	size_t n;
	FILE *f;

	if (!top)
		return;
	snprintf(path, sizeof(path), "%s/realtimectl/bus-error.c", top);
	f = fopen(path, "re");
	ck_assert_msg(f, "%s: %m", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	for (int e = _REQUEST_E_SUCCESS + 1; e < _REQUEST_E_MAX; e++) {
		const char *name = bus_error_name(e, FLAVOUR_NATIVE);
		const char *suffix = startswith(name, NATIVE_ERROR);

		if (suffix)
			snprintf(needle, sizeof(needle), "NATIVE_ERRORS(");
		else
			snprintf(needle, sizeof(needle), "\"%s\"", name);
		ck_assert_msg(strstr(text, needle), "realtimectl/bus-error.c lacks %s", name);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-dispatch");

	check_add_case(s, "tables", CHECK_TESTS(test_xml_agrees_with_tables, test_tables_whole));
	check_add_case(s, "answers",
		       CHECK_TESTS(test_error_names, test_error_names_known_to_realtimectl));
	return check_run(s);
}
