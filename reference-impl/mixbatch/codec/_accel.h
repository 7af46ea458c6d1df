/*
 * Declarations shared by the parts of mixbatch.codec._accel, the codec's C fast path:
 * _accel.c is the module (its state, configure(), scan() and the events it emits),
 * _accel_check.c reads a part from the buffer and decides whether the fast path may take it,
 * and _accel_write.c writes a response part for the writer. _accel.c opens with the theory of
 * operation of the parser's half, _accel_write.c with the writer's.
 */
#ifndef MIXBATCH_ACCEL_H
#define MIXBATCH_ACCEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The module's state; only _accel.c looks inside. */
typedef struct ModuleState ModuleState;

/* Octet classes, one bit each, in the table accel_init_octets() fills. */
enum {
    TCHAR = 1, /* RFC 9110 tchar */
    VALUE = 2, /* a field-value octet: HTAB, SP, VCHAR, obs-text (no CR, LF, other CTL, DEL) */
    URI = 4,   /* RFC 3986 URI-reference characters, less "%", which starts a pct-encoded */
    HEX = 8,   /* HEXDIG */
};

static inline int
accel_is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static inline int
accel_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* RFC 3986 §3.2.2: "[" and "]" only around an IP-literal host, so a reference holding either
 * must be [scheme ":"] "//" [userinfo "@"] "[" ... "]" [":" port] followed by a path, query or
 * fragment that holds neither (spec 3.2.2: rejected under MB-PART-4). _target.py says the
 * same with one regular expression. */
static int
accel_brackets_placed(const char *v, Py_ssize_t len)
{
    Py_ssize_t p = 0, k;
    if (len > 0 && accel_is_alpha(v[0])) {
        for (k = 1; k < len && (accel_is_alpha(v[k]) || accel_is_digit(v[k]) || v[k] == '+' ||
                                v[k] == '-' || v[k] == '.');
             k++)
            ;
        if (k < len && v[k] == ':')
            p = k + 1;
    }
    if (p + 1 >= len || v[p] != '/' || v[p + 1] != '/')
        return 0;
    p += 2;
    Py_ssize_t end = p;
    while (end < len && v[end] != '/' && v[end] != '?' && v[end] != '#')
        end++;
    for (k = end; k < len; k++)
        if (v[k] == '[' || v[k] == ']')
            return 0;
    Py_ssize_t host = p;
    for (k = p; k < end; k++) {
        if (v[k] == '[' || v[k] == ']')
            break;
        if (v[k] == '@') {
            host = k + 1;
            break;
        }
    }
    if (host >= end || v[host] != '[')
        return 0;
    for (k = host + 1; k < end && v[k] != ']'; k++)
        if (v[k] == '[' || v[k] == '@')
            return 0;
    if (k >= end || k == host + 1)
        return 0;
    k++;
    if (k < end) {
        if (v[k] != ':')
            return 0;
        for (k++; k < end; k++)
            if (!accel_is_digit(v[k]))
                return 0;
    }
    return 1;
}

/* A ":" before the first "/", "?" or "#" of v ends a scheme: ALPHA *( ALPHA / DIGIT / "+" /
 * "-" / "." ); a relative reference's first segment holds no colon (RFC 3986 §3.1, §4.2). */
static inline int
accel_scheme_placed(const char *v, Py_ssize_t len)
{
    Py_ssize_t k = 0;
    while (k < len && v[k] != ':' && v[k] != '/' && v[k] != '?' && v[k] != '#')
        k++;
    if (k == len || v[k] != ':')
        return 1;
    if (k == 0 || !accel_is_alpha(v[0]))
        return 0;
    for (Py_ssize_t i = 1; i < k; i++)
        if (!(accel_is_alpha(v[i]) || accel_is_digit(v[i]) || v[i] == '+' || v[i] == '-' ||
              v[i] == '.'))
            return 0;
    return 1;
}

/* RFC 3986 URI-reference characters and %-escapes over all of v[0..len) (none: 1), with "["
 * and "]" only around an IP-literal, a colon before the first "/", "?" or "#" only after a
 * scheme, and one "#" at most (MB-PART-4). The checks of a part's Content-Id and the writer's
 * fast path both read a target this way, as is_uri_reference in _target.py does. */
static inline int
accel_uri_chars(const unsigned char *octets, const char *v, Py_ssize_t len)
{
    int brackets = 0, hashes = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '%') {
            if (i + 2 >= len || !(octets[(unsigned char)v[i + 1]] & HEX) ||
                !(octets[(unsigned char)v[i + 2]] & HEX))
                return 0;
            i += 2;
        }
        else if (!(octets[c] & URI))
            return 0;
        else if (c == '[' || c == ']')
            brackets = 1;
        else if (c == '#' && ++hashes > 1)
            return 0;
    }
    return (!brackets || accel_brackets_placed(v, len)) && accel_scheme_placed(v, len);
}

typedef struct {
    const char *name;
    Py_ssize_t name_len;
    const char *value;
    Py_ssize_t value_len;
    Py_ssize_t line_at; /* offset of the line in the buffer */
    int own;            /* a control field the start event carries by itself */
} Field;

/* Field lines a Scanner holds before scan() allocates room for more. */
#define FIELDS_ON_STACK 32

/* What one scan() call works on: the parser's buffer and settings, and where events go. */
typedef struct {
    ModuleState *st;    /* the module's event classes, for emit_part() */
    const unsigned char *octets; /* the module's octet classes */
    PyObject *forbidden_fields;  /* the names no part of this role may carry */
    PyObject *forbidden_methods;
    PyObject *buf_obj;  /* bytes */
    const char *buf;
    Py_ssize_t len;
    Py_ssize_t base;    /* absolute offset of buf[0] */
    int request;        /* request parts (Http-Method) or response parts (Http-Status-Code) */
    const char *nl_dash; /* "\n--" boundary: the reference's delimiter search string */
    Py_ssize_t nl_dash_len;
    Py_ssize_t max_parts, max_header, max_fields, max_part; /* the parser's Limits */
    Field *fields;      /* local, or grown by scan() for a longer section */
    Py_ssize_t fields_room;
    Field local[FIELDS_ON_STACK];
    PyObject *view;     /* memoryview of buf for PartData, made for the first body */
    PyObject *events;   /* list */
} Scanner;

/* One part, as the checks see it. Offsets are into the buffer. */
typedef struct {
    Py_ssize_t head;       /* first octet of the header section */
    Py_ssize_t block_end;  /* its blank line */
    Py_ssize_t n_lines;    /* line breaks in the section, plus one */
    Py_ssize_t body_start, body_end;
    Py_ssize_t next_dash;  /* the first "-" of the dash-boundary after the body */
    Py_ssize_t n_fields, kept; /* field lines; those the Fields object keeps */
    Py_ssize_t control_at; /* Http-Method or Http-Status-Code */
    Py_ssize_t id_at;      /* Content-Id */
    int status;
} Part;

/* Fill a 256-entry table of octet classes. */
void accel_init_octets(unsigned char *octets);

/* 1 when a whole part starts at pos (just after a dash-boundary) and ends before a plain
 * CRLF dash-boundary inside the buffer and the limits; 0 to stop. Fills part's offsets. */
int accel_find_part(const Scanner *sc, Py_ssize_t pos, Part *part);

/* 1 when the reference would take the part found as it is, with the events emit_part()
 * builds; 0 to stop before it. Splits its field lines into sc->fields, which must have room
 * for part->n_lines of them. */
int accel_classify_part(const Scanner *sc, Part *part);

/* Whether text equals a lower-case name, ignoring ASCII case. */
int accel_name_is(const char *text, Py_ssize_t len, const char *lower, Py_ssize_t lower_len);

/* Whether text is one of a tuple of lower-case bytes names, ignoring ASCII case. */
int accel_in_names(const char *text, Py_ssize_t len, PyObject *names);

/* response_part()'s work (_accel_write.c): the part's octets, None to leave it to the
 * reference writer, or NULL with an exception set (a wrong call, or no memory). */
PyObject *accel_response_part(const unsigned char *octets, PyObject *const *args,
                              Py_ssize_t nargs);

#endif /* MIXBATCH_ACCEL_H */
