/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency --svg FILE: the picture, plain SVG written here (no
 * library: a few rectangles and lines). One histogram per CPU, count on a
 * log scale against lateness on a log scale (wakeups cluster in a few µs
 * while the periods that matter are thousands), the periods of 64, 128
 * and 256 frames at 48 kHz as lines, and a title naming the machine,
 * kernel, preemption model, policy and duration. Every text from the
 * system (host name, kernel release) is cut to printable ASCII and escaped,
 * so the file is valid XML whatever they hold.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "latency.h"

#define SVG_W 760
#define SVG_LEFT 64
#define SVG_RIGHT 24
#define SVG_TOP 80
#define SVG_PANEL_H 170
#define SVG_GAP 46
#define SVG_X_MIN 0.5 /* µs: bucket 0 is [0.5, 1) on the axis */

typedef struct Axes {
	double x_decades; /* the x axis: SVG_X_MIN to 10^x_decades µs */
	int y_decades;	  /* the y axis: count 1 to 10^y_decades */
} Axes;

/* Writes s as XML text: printable ASCII, the markup characters escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else
			fputc(ch >= 0x20 && ch < 0x7f ? ch : '?', f);
	}
}

static bool read_line(const char *path, char *buf, size_t size)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");

	if (!f || !fgets(buf, (int)size, f))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/* The preemption model as far as an unprivileged reader can tell. */
static void preempt_model(const struct utsname *u, char *buf, size_t size)
{
	char line[256], *open, *close;

	if (strstr(u->version, "PREEMPT_RT")) {
		snprintf(buf, size, "PREEMPT_RT");
		return;
	}
	if (!strstr(u->version, "PREEMPT_DYNAMIC")) {
		snprintf(buf, size, "%s",
			 strstr(u->version, "PREEMPT ") ? "PREEMPT" : "no forced preemption");
		return;
	}
	/* "none voluntary (full)": debugfs, root only */
	if (read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line)) &&
	    (open = strchr(line, '(')) && (close = strchr(open, ')'))) {
		*close = '\0';
		snprintf(buf, size, "PREEMPT_DYNAMIC, %s", open + 1);
		return;
	}
	if (read_line("/proc/cmdline", line, sizeof(line)) && (open = strstr(line, "preempt="))) {
		open[strcspn(open, " ")] = '\0';
		snprintf(buf, size, "PREEMPT_DYNAMIC, %s", open);
		return;
	}
	snprintf(buf, size, "PREEMPT_DYNAMIC, its built-in default mode");
}

static double x_of(const Axes *a, double us)
{
	double span = a->x_decades - log10(SVG_X_MIN);

	if (us < SVG_X_MIN)
		us = SVG_X_MIN;
	return SVG_LEFT + (log10(us) - log10(SVG_X_MIN)) / span * (SVG_W - SVG_LEFT - SVG_RIGHT);
}

/* Height of a bar of count, in px: count 1 shows, 10^y_decades fills. */
static double h_of(const Axes *a, uint64_t count)
{
	return count ? (log10((double)count) + 1) / (a->y_decades + 1) * SVG_PANEL_H : 0;
}

static void panel(FILE *f, const Axes *a, const LatCpu *c, double top)
{
	double base = top + SVG_PANEL_H;
	static const struct {
		unsigned frames;
		const char *color;
	} periods[] = { { 64, "#c0392b" }, { 128, "#d68910" }, { 256, "#1e8449" } };

	fprintf(f,
		"<g>\n<text x=\"%d\" y=\"%.1f\" font-size=\"13\">CPU %d: %llu wakeups, "
		"max %.1f us, average %.1f us</text>\n",
		SVG_LEFT, top - 8, c->cpu, (unsigned long long)c->hist->samples,
		(double)c->hist->max_ns / 1000, lat_hist_avg_us(c->hist));
	fprintf(f,
		"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" "
		"stroke=\"#999\"/>\n",
		SVG_LEFT, top, SVG_W - SVG_LEFT - SVG_RIGHT, SVG_PANEL_H);
	/* the axes' decades */
	for (int d = 0; d <= (int)a->x_decades; d++) {
		double x = x_of(a, pow(10, d));

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">"
			"%.0f us</text>\n",
			x, top, x, base, x, base + 12, pow(10, d));
	}
	for (int d = 0; d <= a->y_decades; d++)
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.0f"
			"</text>\n",
			SVG_LEFT - 4, base - h_of(a, (uint64_t)pow(10, d)) + 3, pow(10, d));
	/* the bars, one path */
	fputs("<path fill=\"#2e86c1\" d=\"", f);
	for (unsigned us = 0; us < LAT_HIST_BUCKETS; us++) {
		uint64_t n = c->hist->count[us];
		double x0, x1;

		if (!n)
			continue;
		x0 = x_of(a, us ?: SVG_X_MIN);
		x1 = us == LAT_HIST_BUCKETS - 1 ? x_of(a, (double)c->hist->max_ns / 1000 + 1)
						: x_of(a, us + 1);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		fprintf(f, "M%.1f %.1fV%.1fH%.1fV%.1fZ", x0, base, base - h_of(a, n), x1, base);
	}
	fputs("\"/>\n", f);
	for (size_t i = 0; i < ELEMENTSOF(periods); i++) {
		double x = x_of(a, (double)lat_period_ns(periods[i].frames, 48000) / 1000);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"fill=\"%s\">%u</text>\n",
			x, top, x, base, periods[i].color, x + 3, top + 12, periods[i].color,
			periods[i].frames);
	}
	fputs("</g>\n", f);
}

int lat_write_svg(const LatRun *run, const char *path)
{
	_cleanup_fclose_ FILE *f = NULL;
	char host[256] = "?", model[128], policy[32];
	struct utsname u = {};
	uint64_t max_us = 5334, max_count = 1;
	Axes a;
	int height = SVG_TOP + 22 + (int)run->n_cpus * (SVG_PANEL_H + SVG_GAP) - SVG_GAP + 24;

	for (size_t k = 0; k < run->n_cpus; k++) {
		const LatHist *h = run->cpus[k].hist;

		if (h->max_ns / 1000 + 1 > max_us)
			max_us = h->max_ns / 1000 + 1;
		for (unsigned us = 0; us < LAT_HIST_BUCKETS; us++)
			if (h->count[us] > max_count)
				max_count = h->count[us];
	}
	a = (Axes){ .x_decades = ceil(log10((double)max_us)),
		    .y_decades = (int)ceil(log10((double)max_count)) };
	if (a.y_decades < 1)
		a.y_decades = 1;

	(void)gethostname(host, sizeof(host) - 1);
	(void)uname(&u);
	preempt_model(&u, model, sizeof(model));
	lat_policy_string(run, policy, sizeof(policy));

	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Wakeup latency on ",
		SVG_W, height, SVG_W, height, SVG_LEFT);
	xml_text(f, host);
	fputs(": ", f);
	xml_text(f, policy);
	fprintf(f, ", %.1f s</text>\n<text x=\"%d\" y=\"40\" font-size=\"12\">Linux ",
		(double)run->elapsed_ns / 1e9, SVG_LEFT);
	xml_text(f, u.release);
	fputs(" (", f);
	xml_text(f, model);
	fprintf(f,
		"), a wakeup every %llu us</text>\n<text x=\"%d\" y=\"56\" font-size=\"12\">"
		"Wakeups (log scale) by how late they were (log scale); dashed: the periods "
		"of 64, 128 and 256 frames at 48 kHz</text>\n",
		(unsigned long long)(run->interval_ns / 1000), SVG_LEFT);
	if (run->note[0]) {
		fprintf(f, "<text x=\"%d\" y=\"72\" font-size=\"11\" fill=\"#c0392b\">", SVG_LEFT);
		xml_text(f, run->note);
		fputs("</text>\n", f);
	}
	for (size_t k = 0; k < run->n_cpus; k++)
		panel(f, &a, &run->cpus[k], SVG_TOP + 22 + (double)k * (SVG_PANEL_H + SVG_GAP));
	fputs("</svg>\n", f);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
