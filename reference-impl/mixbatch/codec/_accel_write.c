/*
 * mixbatch.codec._accel, the writer's fast path: one response part, head and body, in C.
 *
 * The pure-Python BatchWriter.response_part (_writer.py) is the reference. This function only
 * writes its commonest case -- a part that ran (a status, no Batch-Outcome), with a Content-Id
 * and end-to-end fields -- and writes exactly the octets the reference writes. The moment
 * anything is unusual -- an argument of another type, a status outside 100-599, a Content-Id
 * that is not a URI-reference, a field name that is not a token or may not appear, a value that
 * is not a field-value, a Content-Length that disagrees or repeats, a body holding the
 * delimiter -- it returns None and writes nothing, so the reference raises its own
 * LocalProtocolError with its own message and requirement ID. So, like scan(), it never raises
 * a protocol error and never writes what the reference refuses; tests/codec/test_accel_write.py
 * holds both to that.
 *
 * Rules mirrored (requirement IDs as in the reference):
 *   status          an int from 100 to 599                                        MB-RESP-2
 *   Content-Id      "<" 1*( URI-reference char / "%" HEXDIG HEXDIG ) ">"           MB-RESP-3
 *   field-line      token ":" SP field-value, no CR or LF (no folding)  MB-PART-7, MB-PART-11
 *   forbidden       no hop-by-hop, framing or control field of the writer's own    MB-RESP-4
 *   Content-Length  at most one, equal to the body's octets; added when absent MB-WIRE-15/16
 *   delimiter       the body holds no "\n--boundary" and does not open with one    MB-WIRE-6
 * The forbidden names come from the caller (_writer.py) on each call: no list is spelled here.
 */
#define _GNU_SOURCE /* memmem */
#include "_accel.h"

#include <stdio.h>
#include <string.h>

/* One field pair, checked, as pointers into its str objects (which the caller's tuple holds). */
typedef struct {
    const char *name;
    Py_ssize_t name_len;
    const char *value;
    Py_ssize_t value_len;
} Pair;

/* Pairs a call checks on the stack before it allocates room for more. */
#define PAIRS_ON_STACK 16

static int
is_digits_equal(const char *text, Py_ssize_t len, const char *digits, Py_ssize_t digits_len)
{
    return len == digits_len && memcmp(text, digits, (size_t)len) == 0;
}

/* A str of one octet per character: ASCII when ascii is set, else Latin-1. NULL otherwise. */
static const char *
octets_of(PyObject *text, Py_ssize_t *len, int ascii)
{
    if (!PyUnicode_Check(text) || PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        return NULL;
    if (ascii && !PyUnicode_IS_ASCII(text))
        return NULL;
    *len = PyUnicode_GET_LENGTH(text);
    return (const char *)PyUnicode_1BYTE_DATA(text);
}

/* RFC 3986 URI-reference characters and %-escapes, at least one (is_uri_reference). */
static int
is_uri_reference(const unsigned char *octets, const char *v, Py_ssize_t len)
{
    return len > 0 && accel_uri_chars(octets, v, len);
}

/* RFC 9110 field-value with no leading or trailing whitespace; empty allowed (MB-PART-11). */
static int
is_field_value(const unsigned char *octets, const char *v, Py_ssize_t len)
{
    if (len == 0)
        return 1;
    if (v[0] == ' ' || v[0] == '\t' || v[len - 1] == ' ' || v[len - 1] == '\t')
        return 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (!(octets[(unsigned char)v[i]] & VALUE))
            return 0;
    return 1;
}

static int
is_token(const unsigned char *octets, const char *v, Py_ssize_t len)
{
    if (len == 0)
        return 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (!(octets[(unsigned char)v[i]] & TCHAR))
            return 0;
    return 1;
}

static PyObject *
decline(Pair *pairs, Pair *local)
{
    if (pairs != local)
        PyMem_Free(pairs);
    Py_RETURN_NONE;
}

#define HEAD_STATUS "Http-Status-Code: "
#define HEAD_ID "\r\nContent-Id: <"
#define HEAD_LENGTH "Content-Length: "
#define LIT(s) (Py_ssize_t)(sizeof(s) - 1)
#define PUT(p, text, len) (memcpy((p), (text), (size_t)(len)), (p) += (len))

PyObject *
accel_response_part(const unsigned char *octets, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "response_part() takes 7 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *dash_obj = args[0], *status_obj = args[2], *id_obj = args[3], *fields = args[4];
    PyObject *body_obj = args[5], *not_allowed = args[6];
    if (!PyBytes_Check(dash_obj) || !PyTuple_Check(not_allowed)) {
        PyErr_SetString(PyExc_TypeError, "response_part() expects bytes, ..., tuple of bytes");
        return NULL;
    }
    int first = PyObject_IsTrue(args[1]);
    if (first < 0)
        return NULL;
    Pair local[PAIRS_ON_STACK], *pairs = local;
    if (!PyLong_CheckExact(status_obj) || !PyBytes_CheckExact(body_obj) ||
        !(PyTuple_CheckExact(fields) || PyList_CheckExact(fields)))
        return decline(pairs, local);
    int overflow = 0;
    long status = PyLong_AsLongAndOverflow(status_obj, &overflow);
    if (overflow || status < 100 || status > 599)
        return decline(pairs, local);
    Py_ssize_t id_len;
    const char *id = octets_of(id_obj, &id_len, 1);
    if (id == NULL || !is_uri_reference(octets, id, id_len))
        return decline(pairs, local);

    const char *dash = PyBytes_AS_STRING(dash_obj), *body = PyBytes_AS_STRING(body_obj);
    Py_ssize_t dash_len = PyBytes_GET_SIZE(dash_obj), body_len = PyBytes_GET_SIZE(body_obj);
    /* MB-WIRE-6: "the delimiter occurs in no part's body": no "\n--boundary" anywhere, and no
     * "--boundary" at its very start, which follows the CRLF of the blank line. */
    if (body_len >= dash_len && memcmp(body, dash, (size_t)dash_len) == 0)
        return decline(pairs, local);
    if (body_len > dash_len) {
        for (const char *p = body; (p = memchr(p, '\n', (size_t)(body + body_len - p))) != NULL;
             p++) {
            if (body + body_len - (p + 1) < dash_len)
                break;
            if (memcmp(p + 1, dash, (size_t)dash_len) == 0)
                return decline(pairs, local);
        }
    }

    char length_text[24];
    Py_ssize_t length_len = snprintf(length_text, sizeof length_text, "%zd", body_len);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fields);
    if (n > PAIRS_ON_STACK && (pairs = PyMem_New(Pair, n)) == NULL)
        return PyErr_NoMemory();
    int has_length = 0;
    Py_ssize_t size = LIT(HEAD_STATUS) + 3 + LIT(HEAD_ID) + id_len + 1;
    PyObject **items = PySequence_Fast_ITEMS(fields);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = items[i];
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
            return decline(pairs, local);
        Pair *f = &pairs[i];
        if ((f->name = octets_of(PyTuple_GET_ITEM(pair, 0), &f->name_len, 1)) == NULL ||
            (f->value = octets_of(PyTuple_GET_ITEM(pair, 1), &f->value_len, 0)) == NULL ||
            !is_token(octets, f->name, f->name_len) ||
            !is_field_value(octets, f->value, f->value_len) ||
            accel_in_names(f->name, f->name_len, not_allowed))
            return decline(pairs, local);
        if (accel_name_is(f->name, f->name_len, "content-length", LIT("content-length"))) {
            /* MB-WIRE-16: one Content-Length, and it must be the body's. */
            if (has_length ||
                !is_digits_equal(f->value, f->value_len, length_text, length_len))
                return decline(pairs, local);
            has_length = 1;
        }
        size += 2 + f->name_len + 2 + f->value_len;
    }
    if (!has_length)
        size += 2 + LIT(HEAD_LENGTH) + length_len;
    Py_ssize_t opening = first ? dash_len + 2 : 2;
    size += opening + 4 + body_len + 2 + dash_len;

    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) {
        if (pairs != local)
            PyMem_Free(pairs);
        return NULL;
    }
    char *p = PyBytes_AS_STRING(out);
    if (first)
        PUT(p, dash, dash_len);
    PUT(p, "\r\n", 2);
    PUT(p, HEAD_STATUS, LIT(HEAD_STATUS));
    *p++ = (char)('0' + status / 100);
    *p++ = (char)('0' + status / 10 % 10);
    *p++ = (char)('0' + status % 10);
    PUT(p, HEAD_ID, LIT(HEAD_ID));
    PUT(p, id, id_len);
    *p++ = '>';
    for (Py_ssize_t i = 0; i < n; i++) {
        PUT(p, "\r\n", 2);
        PUT(p, pairs[i].name, pairs[i].name_len);
        PUT(p, ": ", 2);
        PUT(p, pairs[i].value, pairs[i].value_len);
    }
    if (!has_length) {
        PUT(p, "\r\n", 2);
        PUT(p, HEAD_LENGTH, LIT(HEAD_LENGTH));
        PUT(p, length_text, length_len);
    }
    PUT(p, "\r\n\r\n", 4);
    PUT(p, body, body_len);
    PUT(p, "\r\n", 2);
    PUT(p, dash, dash_len);
    if (pairs != local)
        PyMem_Free(pairs);
    return out;
}
