/* The XML tokenizer of the .vtu reader: the next tag in a document held in
 * memory, its name and attributes, with no tree and no entities. Hand
 * written, so every offset is bounds checked against the document's size
 * (the input is hostile; tests/fuzz/fuzz_tet.c exercises it) and a document
 * may go on past its XML (a .vtu's appended raw data). Errors come back in
 * the xml_doc (a message and its offset) for the caller to name the file
 * and line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tetmesh_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int xml_fail(xml_doc *x, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int xml_fail(xml_doc *x, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
    x->err_at = at;
    return -1;
}

static bool starts(const char *d, size_t size, size_t at, const char *s)
{
    size_t n = strlen(s);
    return at <= size && size - at >= n && memcmp(d + at, s, n) == 0;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
           c == '-' || c == '.';
}

bool xml_is(const char *s, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(s, want, n) == 0;
}

const xattr *xml_attr(const xtag *t, const char *name)
{
    for (int i = 0; i < t->na; i++)
        if (xml_is(t->a[i].name, t->a[i].nlen, name))
            return &t->a[i];
    return NULL;
}

/* A decimal attribute value (spaces around allowed). */
bool xml_u64(const char *s, size_t n, uint64_t *v)
{
    size_t i = 0;
    while (i < n && is_ws(s[i]))
        i++;
    if (i == n || s[i] < '0' || s[i] > '9')
        return false;
    uint64_t x = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = 10 * x + (uint64_t)(s[i++] - '0');
    }
    while (i < n && is_ws(s[i]))
        i++;
    if (i != n)
        return false;
    *v = x;
    return true;
}

/* The next tag at or past *pos: 1, 0 at the end of the document, -1 on an
 * error. Comments, processing instructions and declarations are skipped. */
int xml_next_tag(xml_doc *x, size_t *pos, xtag *t)
{
    const char *d = x->d;
    size_t size = x->size;
    for (;;) {
        if (*pos >= size)
            return 0;
        const char *lt = memchr(d + *pos, '<', size - *pos);
        if (!lt)
            return 0;
        size_t i = (size_t)(lt - d);
        if (starts(d, size, i, "<!--") || starts(d, size, i, "<?")) {
            const char *close = d[i + 1] == '!' ? "-->" : "?>";
            const char *e = memmem(d + i + 2, size - i - 2, close, strlen(close));
            if (!e)
                return xml_fail(x, i, "a %s with no end (truncated?)", d[i + 1] == '!' ? "comment" : "'<?'");
            *pos = (size_t)(e - d) + strlen(close);
            continue;
        }
        if (starts(d, size, i, "<![CDATA["))
            return xml_fail(x, i, "CDATA sections are not supported");
        if (starts(d, size, i, "<!")) {
            const char *e = memchr(d + i, '>', size - i);
            if (!e)
                return xml_fail(x, i, "a '<!' with no end (truncated?)");
            *pos = (size_t)(e - d) + 1;
            continue;
        }
        t->at = i++;
        t->close = i < size && d[i] == '/';
        if (t->close)
            i++;
        size_t n0 = i;
        while (i < size && name_char(d[i]))
            i++;
        t->name = d + n0;
        t->nlen = i - n0;
        if (!t->nlen)
            return xml_fail(x, t->at, i >= size ? "the file ends inside a tag (truncated?)" : "a malformed tag");
        t->na = 0;
        t->empty = false;
        for (;;) {
            while (i < size && is_ws(d[i]))
                i++;
            if (i >= size)
                return xml_fail(x, t->at, "the tag <%.*s> has no end (truncated?)", (int)(t->nlen > 40 ? 40 : t->nlen),
                                t->name);
            if (d[i] == '>') {
                i++;
                break;
            }
            if (d[i] == '/' && i + 1 < size && d[i + 1] == '>' && !t->close) {
                t->empty = true;
                i += 2;
                break;
            }
            if (t->close)
                return xml_fail(x, t->at, "a malformed closing tag");
            size_t a0 = i;
            while (i < size && name_char(d[i]))
                i++;
            size_t alen = i - a0;
            while (i < size && is_ws(d[i]))
                i++;
            if (!alen || i >= size || d[i] != '=')
                return xml_fail(x, t->at, "a malformed attribute in <%.*s>", (int)(t->nlen > 40 ? 40 : t->nlen),
                                t->name);
            i++;
            while (i < size && is_ws(d[i]))
                i++;
            if (i >= size || (d[i] != '"' && d[i] != '\''))
                return xml_fail(x, t->at, "an attribute value without quotes in <%.*s>",
                                (int)(t->nlen > 40 ? 40 : t->nlen), t->name);
            const char *q = memchr(d + i + 1, d[i], size - i - 1);
            if (!q)
                return xml_fail(x, t->at, "an attribute value with no end (truncated?)");
            if (t->na == XML_MAX_ATTRS)
                return xml_fail(x, t->at, "more than %d attributes in one tag", XML_MAX_ATTRS);
            t->a[t->na++] = (xattr){ d + a0, d + i + 1, alen, (size_t)(q - (d + i + 1)) };
            i = (size_t)(q - d) + 1;
        }
        t->end = i;
        *pos = i;
        return 1;
    }
}
