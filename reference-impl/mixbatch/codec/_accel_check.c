/*
 * mixbatch.codec._accel, the part checks: where the next part is in the buffer (find) and
 * whether the fast path may take it (classify). Both only read the buffer and call no Python
 * API that can fail, so each answers take (1) or stop (0) and nothing else; stopping hands the
 * part to the reference parser, which reports any fault. _accel.c has the theory of operation.
 */
#define _GNU_SOURCE /* memmem */
#include "_accel.h"

#include <string.h>

void
accel_init_octets(unsigned char *octets)
{
    const char *tchar_punct = "!#$%&'*+-.^_`|~";
    const char *uri_punct = "-._~:/?#[]@!$&'()*+,;=";
    for (int c = 0; c < 256; c++) {
        int digit = c >= '0' && c <= '9';
        int alnum = digit || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        int hex = digit || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
        int value = c == '\t' || (c >= 0x20 && c <= 0x7e) || c >= 0x80;
        octets[c] = (unsigned char)(((alnum || (c && strchr(tchar_punct, c))) ? TCHAR : 0) |
                                    (value ? VALUE : 0) |
                                    ((alnum || (c && strchr(uri_punct, c))) ? URI : 0) |
                                    (hex ? HEX : 0));
    }
}

static const char *
find_bytes(const char *hay, Py_ssize_t hay_len, const char *needle, Py_ssize_t needle_len)
{
    if (hay_len < needle_len)
        return NULL;
    return memmem(hay, (size_t)hay_len, needle, (size_t)needle_len);
}

/* ---- find: the part's header section and the delimiter that ends its body ----------------- */

int
accel_find_part(const Scanner *sc, Py_ssize_t pos, Part *part)
{
    const char *buf = sc->buf;
    Py_ssize_t len = sc->len;
    /* The rest of the delimiter line: exactly CRLF (MB-WIRE-19: padding is the reference's). */
    if (len - pos < 2 || buf[pos] != '\r' || buf[pos + 1] != '\n')
        return 0;
    part->head = pos + 2;

    /* The header section, bounded by the limit (MB-LIMIT-1); not found: incomplete, or over
     * the limit, which the reference reports. */
    Py_ssize_t window = len - part->head < sc->max_header ? len - part->head : sc->max_header;
    const char *blank = find_bytes(buf + part->head, window, "\r\n\r\n", 4);
    if (blank == NULL)
        return 0;
    part->block_end = blank - buf;
    part->body_start = part->block_end + 4;

    /* At most max_part_fields field lines (MB-LIMIT-5). A bare LF counted here as a line
     * break only stops the scan sooner: split_fields() would refuse it anyway. */
    part->n_lines = 1;
    for (const char *p = buf + part->head, *end = blank;
         (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        part->n_lines++;
    if (part->n_lines > sc->max_fields)
        return 0;

    /* The body: empty when the dash-boundary follows the blank line at once; else it ends at
     * the first "\n--boundary", as the reference's bytes.find. */
    const char *dash = sc->nl_dash + 1;
    Py_ssize_t dash_len = sc->nl_dash_len - 1, body_start = part->body_start;
    if (len - body_start >= dash_len && memcmp(buf + body_start, dash, (size_t)dash_len) == 0) {
        part->body_end = part->next_dash = body_start;
    }
    else {
        const char *nl = find_bytes(buf + body_start, len - body_start, sc->nl_dash,
                                    sc->nl_dash_len);
        if (nl == NULL)
            return 0; /* the part is not complete in the buffer yet */
        Py_ssize_t hit_at = nl - buf;
        if (hit_at == body_start || buf[hit_at - 1] != '\r')
            return 0; /* a bare LF before the delimiter: the reference reports MB-WIRE-8 */
        part->body_end = hit_at - 1;
        part->next_dash = hit_at + 1;
    }
    return part->body_end - body_start <= sc->max_part;
}

/* ---- classify: the header section's field lines and control fields ------------------------ */

int
accel_name_is(const char *text, Py_ssize_t len, const char *lower, Py_ssize_t lower_len)
{
    if (len != lower_len)
        return 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        if (c != (unsigned char)lower[i])
            return 0;
    }
    return 1;
}

#define NAME_IS(text, len, literal) \
    accel_name_is((text), (len), literal, (Py_ssize_t)sizeof(literal) - 1)

int
accel_in_names(const char *text, Py_ssize_t len, PyObject *names)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (accel_name_is(text, len, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name)))
            return 1;
    }
    return 0;
}

/* Split the header section [head, block_end) into CRLF-separated field lines (MB-PART-11).
 * Returns the number of lines, or -1 when the reference must decide: a line the grammar
 * refuses, or more lines than max_part_fields (MB-LIMIT-5). */
static Py_ssize_t
split_fields(const Scanner *sc, const Part *part)
{
    const char *buf = sc->buf;
    const unsigned char *octets = sc->octets;
    Py_ssize_t p = part->head, end = part->block_end, n = 0;
    while (p < end) {
        if (n == sc->fields_room)
            return -1;
        Field *f = &sc->fields[n++];
        f->line_at = p;
        f->name = buf + p;
        while (p < end && octets[(unsigned char)buf[p]] & TCHAR)
            p++;
        f->name_len = buf + p - f->name;
        if (f->name_len == 0 || p == end || buf[p] != ':')
            return -1;
        p++;
        Py_ssize_t line_end = p;
        while (line_end < end && octets[(unsigned char)buf[line_end]] & VALUE)
            line_end++;
        if (line_end < end && !(buf[line_end] == '\r' && line_end + 1 < end &&
                                buf[line_end + 1] == '\n' && line_end + 2 < end))
            return -1; /* a CTL, bare CR or LF, or an empty line inside the section */
        Py_ssize_t a = p, b = line_end;
        while (a < b && (buf[a] == ' ' || buf[a] == '\t'))
            a++;
        while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t'))
            b--;
        f->value = buf + a;
        f->value_len = b - a;
        f->own = 0;
        p = line_end < end ? line_end + 2 : end;
    }
    return n;
}

/* "<" URI-reference ">" with an empty reference allowed (MB-PART-4, MB-RESP-3). */
static int
is_content_id(const unsigned char *octets, const char *v, Py_ssize_t len)
{
    return len >= 2 && v[0] == '<' && v[len - 1] == '>' && accel_uri_chars(octets, v + 1, len - 2);
}

/* Content-Length: 1*DIGIT equal to the body's octets (MB-WIRE-17, MB-WIRE-20). */
static int
length_matches(const Scanner *sc, const Field *f, Py_ssize_t body_len)
{
    if (f->value_len == 0)
        return 0;
    Py_ssize_t declared = 0;
    for (Py_ssize_t i = 0; i < f->value_len; i++) {
        int digit = (unsigned char)f->value[i] - '0';
        if (digit < 0 || digit > 9 || declared > (sc->max_part - digit) / 10)
            return 0; /* not a digit, or over max_part_bytes: the reference reports it */
        declared = declared * 10 + digit;
    }
    return declared == body_len;
}

/* One token Http-Method that is not a forbidden method (MB-PART-2, MB-SUB-3). */
static int
method_ok(const Scanner *sc, const Field *m)
{
    if (m->value_len == 0)
        return 0;
    for (Py_ssize_t i = 0; i < m->value_len; i++)
        if (!(sc->octets[(unsigned char)m->value[i]] & TCHAR))
            return 0;
    return !accel_in_names(m->value, m->value_len, sc->forbidden_methods);
}

/* One Http-Status-Code of [1-5] DIGIT DIGIT (MB-RESP-2); its value, or -1. */
static int
status_of(const Field *s)
{
    const char *v = s->value;
    if (s->value_len != 3 || v[0] < '1' || v[0] > '5' || v[1] < '0' || v[1] > '9' ||
        v[2] < '0' || v[2] > '9')
        return -1;
    return (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
}

int
accel_classify_part(const Scanner *sc, Part *part)
{
    Py_ssize_t n = split_fields(sc, part);
    if (n <= 0)
        return 0;
    Py_ssize_t control_at = -1, id_at = -1, length_at = -1, kept = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Field *f = &sc->fields[i];
        Py_ssize_t *seen = NULL;
        if (NAME_IS(f->name, f->name_len, "content-id"))
            seen = &id_at;
        else if (NAME_IS(f->name, f->name_len, "content-length"))
            seen = &length_at;
        else if (sc->request ? NAME_IS(f->name, f->name_len, "http-method")
                             : NAME_IS(f->name, f->name_len, "http-status-code"))
            seen = &control_at;
        else if (!sc->request && NAME_IS(f->name, f->name_len, "batch-outcome"))
            return 0; /* outcomes and their interplay are the reference's */
        else if (accel_in_names(f->name, f->name_len, sc->forbidden_fields))
            return 0;
        if (seen != NULL) {
            if (*seen >= 0)
                return 0; /* a repeated control field */
            *seen = i;
            f->own = seen != &length_at;
        }
        kept += !f->own;
    }
    if (control_at < 0 || id_at < 0 ||
        !is_content_id(sc->octets, sc->fields[id_at].value, sc->fields[id_at].value_len))
        return 0;
    if (length_at >= 0 && !length_matches(sc, &sc->fields[length_at],
                                          part->body_end - part->body_start))
        return 0;
    if (sc->request ? !method_ok(sc, &sc->fields[control_at])
                    : (part->status = status_of(&sc->fields[control_at])) < 0)
        return 0;
    part->n_fields = n;
    part->kept = kept;
    part->control_at = control_at;
    part->id_at = id_at;
    return 1;
}
