/*
 * mixbatch.codec._accel: the batch parser's fast path, in C.
 *
 * The pure-Python BatchParser (_parser.py, _parts.py) is the reference. This module only
 * speeds up its commonest case: a run of whole, plainly valid parts already in the buffer.
 * scan() starts where the parser stands after a dash-boundary (state AFTER_DASH) and, for
 * each part that is complete in the buffer, checks everything the reference checks and
 * appends exactly the events the reference would append. The moment anything is unusual -- a
 * part not yet complete, transport padding, the close delimiter, a bare CR or LF, a field
 * line the grammar refuses, a forbidden or repeated control field, Batch-Outcome, a limit
 * reached, a Content-Length that disagrees -- it stops *before* that part and hands back the
 * position, so the reference code parses that part and reports any fault with its own
 * message, requirement ID and offset. So this module never raises a protocol error and never
 * accepts what the reference refuses; tests/codec/test_accel.py holds both to that.
 *
 * Rules mirrored here (spec section and requirement ID, as in the reference code):
 *   delimiter line  "--" boundary CRLF, no padding (else: the reference decides) MB-WIRE-19/8
 *   field-line      token ":" OWS value OWS, value octets in HTAB / SP..~ / obs-text   MB-PART-11
 *   section         at most max_part_header_bytes octets including its blank line     MB-LIMIT-1
 *   body            ends at CRLF "--" boundary; a bare LF before it is a fault        MB-WIRE-8
 *   Content-Length  one line of 1*DIGIT equal to the body octets                      MB-WIRE-17/20
 *   request part    one token Http-Method, not CONNECT/TRACE; one Content-Id "<" URI-reference ">";
 *                   no forbidden field                                  MB-PART-2/4/10, MB-SUB-3
 *   response part   one Http-Status-Code [1-5]DIGIT DIGIT; one Content-Id; no Batch-Outcome;
 *                   no forbidden field                                  MB-RESP-2/3/4/5
 *
 * Events are the codec's own frozen, slotted dataclasses. configure() receives the classes
 * and the slot order; instances are allocated with tp_alloc and their member slots filled
 * directly, as object.__setattr__ would, which skips the Python-level __init__ (its checks
 * are implied by the checks above).
 */
#define _GNU_SOURCE /* memmem */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_SLOTS 8
#define MAX_FIELDS 64 /* more field lines than this in one part: the reference handles it */
#define MAX_NAMES 16
#define MAX_LENGTH_DIGITS 18

typedef struct {
    PyTypeObject *type;
    Py_ssize_t offsets[MAX_SLOTS];
    int count;
} Shape;

typedef struct {
    const char *text;
    Py_ssize_t len;
} Name;

typedef struct {
    Shape request_start; /* index, method, target, fields, offset, target_offset */
    Shape response_start; /* index, status, outcome, content_id, fields, offset */
    Shape part_data;      /* index, data */
    Shape part_end;       /* index, length */
    Shape fields;         /* _pairs */
    PyObject *names_keep; /* a tuple of bytes objects, owned, that the Name arrays point into */
    Name forbidden_request[MAX_NAMES];
    int n_forbidden_request;
    Name forbidden_response[MAX_NAMES];
    int n_forbidden_response;
    int configured;
} State;

static State state;

/* RFC 9110 tchar. */
static unsigned char is_tchar[256];
/* A field-value octet: HTAB, SP, VCHAR, obs-text (never CR, LF, other CTLs or DEL). */
static unsigned char is_value_octet[256];
/* RFC 3986 URI-reference characters, less "%" which must start a pct-encoded triplet. */
static unsigned char is_uri_char[256];
static unsigned char is_hex[256];

static void
init_tables(void)
{
    const char *tchar_punct = "!#$%&'*+-.^_`|~";
    const char *uri_punct = "-._~:/?#[]@!$&'()*+,;=";
    for (int c = 0; c < 256; c++) {
        int alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        is_tchar[c] = (unsigned char)(alnum || (c && strchr(tchar_punct, c) != NULL));
        is_value_octet[c] = (unsigned char)(c == '\t' || (c >= 0x20 && c <= 0x7e) || c >= 0x80);
        is_uri_char[c] = (unsigned char)(alnum || (c && strchr(uri_punct, c) != NULL));
        is_hex[c] = (unsigned char)((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') ||
                                    (c >= 'a' && c <= 'f'));
    }
}

/* ---- configure ------------------------------------------------------------------------ */

static int
load_shape(Shape *shape, PyObject *type, PyObject *slot_names)
{
    if (!PyType_Check(type) || !PyTuple_Check(slot_names)) {
        PyErr_SetString(PyExc_TypeError, "configure() expects (class, tuple of slot names)");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(slot_names);
    if (n < 1 || n > MAX_SLOTS) {
        PyErr_SetString(PyExc_ValueError, "unsupported number of slots");
        return -1;
    }
    PyTypeObject *tp = (PyTypeObject *)type;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *descr = PyDict_GetItemWithError(tp->tp_dict, PyTuple_GET_ITEM(slot_names, i));
        if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s.%S is not a slot", tp->tp_name,
                             PyTuple_GET_ITEM(slot_names, i));
            return -1;
        }
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type != Py_T_OBJECT_EX) {
            PyErr_Format(PyExc_TypeError, "%s.%S is not an object slot", tp->tp_name,
                         PyTuple_GET_ITEM(slot_names, i));
            return -1;
        }
        shape->offsets[i] = member->offset;
    }
    Py_INCREF(type);
    Py_XSETREF(shape->type, tp);
    shape->count = (int)n;
    return 0;
}

static int
load_names(Name *names, int *count, PyObject *tuple)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) > MAX_NAMES) {
        PyErr_SetString(PyExc_TypeError, "expected a tuple of at most 16 lower-case bytes names");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "field names must be bytes");
            return -1;
        }
        names[i].text = PyBytes_AS_STRING(item);
        names[i].len = PyBytes_GET_SIZE(item);
    }
    *count = (int)PyTuple_GET_SIZE(tuple);
    return 0;
}

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *shapes[5][2];
    PyObject *forbidden_request, *forbidden_response;
    if (!PyArg_ParseTuple(args, "(OO)(OO)(OO)(OO)(OO)O!O!:configure", &shapes[0][0],
                          &shapes[0][1], &shapes[1][0], &shapes[1][1], &shapes[2][0],
                          &shapes[2][1], &shapes[3][0], &shapes[3][1], &shapes[4][0],
                          &shapes[4][1], &PyTuple_Type, &forbidden_request, &PyTuple_Type,
                          &forbidden_response))
        return NULL;
    state.configured = 0;
    Shape *targets[5] = {&state.request_start, &state.response_start, &state.part_data,
                         &state.part_end, &state.fields};
    for (int i = 0; i < 5; i++)
        if (load_shape(targets[i], shapes[i][0], shapes[i][1]) < 0)
            return NULL;
    if (state.request_start.count != 6 || state.response_start.count != 6 ||
        state.part_data.count != 2 || state.part_end.count != 2 || state.fields.count != 1) {
        PyErr_SetString(PyExc_ValueError, "event classes do not have the expected slots");
        return NULL;
    }
    PyObject *keep = PyTuple_Pack(2, forbidden_request, forbidden_response);
    if (keep == NULL)
        return NULL;
    Py_XSETREF(state.names_keep, keep);
    if (load_names(state.forbidden_request, &state.n_forbidden_request, forbidden_request) < 0 ||
        load_names(state.forbidden_response, &state.n_forbidden_response, forbidden_response) < 0)
        return NULL;
    state.configured = 1;
    Py_RETURN_NONE;
}

/* ---- helpers -------------------------------------------------------------------------- */

/* A new instance of shape->type with its slots set to values[], whose references it steals.
 * On failure every value is released. */
static PyObject *
make(Shape *shape, PyObject **values)
{
    PyObject *obj = NULL;
    for (int i = 0; i < shape->count; i++)
        if (values[i] == NULL)
            goto fail;
    obj = shape->type->tp_alloc(shape->type, 0);
    if (obj == NULL)
        goto fail;
    for (int i = 0; i < shape->count; i++)
        *(PyObject **)((char *)obj + shape->offsets[i]) = values[i];
    return obj;
fail:
    for (int i = 0; i < shape->count; i++)
        Py_XDECREF(values[i]);
    return NULL;
}

static int
name_is(const char *text, Py_ssize_t len, const char *lower, Py_ssize_t lower_len)
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

#define NAME_IS(text, len, literal) name_is((text), (len), literal, (Py_ssize_t)sizeof(literal) - 1)

static int
in_names(const char *text, Py_ssize_t len, const Name *names, int count)
{
    for (int i = 0; i < count; i++)
        if (name_is(text, len, names[i].text, names[i].len))
            return 1;
    return 0;
}

/* "<" URI-reference ">" with an empty reference allowed (MB-PART-4, MB-RESP-3). */
static int
is_content_id(const char *v, Py_ssize_t len)
{
    if (len < 2 || v[0] != '<' || v[len - 1] != '>')
        return 0;
    for (Py_ssize_t i = 1; i < len - 1; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '%') {
            if (i + 2 >= len - 1 || !is_hex[(unsigned char)v[i + 1]] ||
                !is_hex[(unsigned char)v[i + 2]])
                return 0;
            i += 2;
        }
        else if (!is_uri_char[c])
            return 0;
    }
    return 1;
}

static const char *
find_bytes(const char *hay, Py_ssize_t hay_len, const char *needle, Py_ssize_t needle_len)
{
    if (hay_len < needle_len)
        return NULL;
    return memmem(hay, (size_t)hay_len, needle, (size_t)needle_len);
}

typedef struct {
    const char *name;
    Py_ssize_t name_len;
    const char *value;
    Py_ssize_t value_len;
    Py_ssize_t line_at; /* offset of the line in the buffer */
    int own;            /* a control field the start event carries by itself */
} Field;

/* Split and check a header section [p, end) of CRLF-separated field lines. Returns the
 * number of fields, or -1 when the reference must decide. */
static int
split_fields(const char *buf, Py_ssize_t p, Py_ssize_t end, Field *fields)
{
    int n = 0;
    while (p < end) {
        if (n == MAX_FIELDS)
            return -1;
        Field *f = &fields[n++];
        f->line_at = p;
        f->name = buf + p;
        while (p < end && is_tchar[(unsigned char)buf[p]])
            p++;
        f->name_len = buf + p - f->name;
        if (f->name_len == 0 || p == end || buf[p] != ':')
            return -1;
        p++;
        Py_ssize_t line_end = p;
        while (line_end < end && is_value_octet[(unsigned char)buf[line_end]])
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

static PyObject *
latin1(const char *text, Py_ssize_t len)
{
    return PyUnicode_DecodeLatin1(text, len, NULL);
}

/* The Fields object holding every field not marked own, in order. */
static PyObject *
make_fields(const Field *fields, int n, int kept)
{
    PyObject *pairs = PyTuple_New(kept);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t j = 0;
    for (int i = 0; i < n; i++) {
        if (fields[i].own)
            continue;
        PyObject *pair = PyTuple_New(2);
        if (pair == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        PyTuple_SET_ITEM(pairs, j++, pair);
        PyObject *name = latin1(fields[i].name, fields[i].name_len);
        if (name == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        PyTuple_SET_ITEM(pair, 0, name);
        PyObject *value = latin1(fields[i].value, fields[i].value_len);
        if (value == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        PyTuple_SET_ITEM(pair, 1, value);
    }
    PyObject *values[1] = {pairs};
    return make(&state.fields, values);
}

static int
append_steal(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

/* ---- scan ----------------------------------------------------------------------------- */

PyDoc_STRVAR(scan_doc,
"scan(buf, view, pos, base, index, request, dash, max_parts, max_header, max_part, events)\n"
"--\n\n"
"Parse the whole, plainly valid parts of ``buf`` from ``pos``, a position just after a\n"
"dash-boundary, appending their events to ``events``. Returns (pos, index, dash_at): the\n"
"position after the last dash-boundary consumed, the last part index, and that\n"
"dash-boundary's absolute offset (-1 when no part was consumed).");

static PyObject *
scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "scan() takes 11 arguments");
        return NULL;
    }
    if (!state.configured) {
        PyErr_SetString(PyExc_RuntimeError, "mixbatch.codec._accel is not configured");
        return NULL;
    }
    PyObject *buf_obj = args[0], *view = args[1], *dash_obj = args[6], *events = args[10];
    if (!PyBytes_Check(buf_obj) || !PyBytes_Check(dash_obj) || !PyList_Check(events)) {
        PyErr_SetString(PyExc_TypeError, "scan() expects bytes, memoryview, ..., bytes, ..., list");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[2]);
    Py_ssize_t base = PyLong_AsSsize_t(args[3]);
    Py_ssize_t index = PyLong_AsSsize_t(args[4]);
    int request = PyObject_IsTrue(args[5]);
    Py_ssize_t max_parts = PyLong_AsSsize_t(args[7]);
    Py_ssize_t max_header = PyLong_AsSsize_t(args[8]);
    Py_ssize_t max_part = PyLong_AsSsize_t(args[9]);
    if (PyErr_Occurred())
        return NULL;

    const char *buf = PyBytes_AS_STRING(buf_obj);
    Py_ssize_t len = PyBytes_GET_SIZE(buf_obj);
    const char *dash = PyBytes_AS_STRING(dash_obj);
    Py_ssize_t dash_len = PyBytes_GET_SIZE(dash_obj);
    if (pos < 0 || pos > len || dash_len < 3 || dash_len > 72) {
        PyErr_SetString(PyExc_ValueError, "scan(): position or dash-boundary out of range");
        return NULL;
    }
    Py_ssize_t dash_at = -1;
    Field fields[MAX_FIELDS];
    char nl_dash[80];
    nl_dash[0] = '\n';
    memcpy(nl_dash + 1, dash, (size_t)dash_len);

    for (;;) {
        /* The rest of the delimiter line: exactly CRLF (MB-WIRE-19: padding is the
         * reference's). */
        if (len - pos < 2 || buf[pos] != '\r' || buf[pos + 1] != '\n')
            break;
        if (index + 1 >= max_parts)
            break; /* the reference raises the part-count limit */
        Py_ssize_t head = pos + 2;

        /* The header section, bounded by the limit (MB-LIMIT-1). */
        Py_ssize_t window = len - head < max_header ? len - head : max_header;
        const char *blank = find_bytes(buf + head, window, "\r\n\r\n", 4);
        if (blank == NULL)
            break; /* incomplete, or over the limit: the reference decides */
        Py_ssize_t block_end = blank - buf, body_start = block_end + 4;
        int n = split_fields(buf, head, block_end, fields);
        if (n <= 0)
            break;

        /* The body: empty when the dash-boundary follows the blank line at once. */
        Py_ssize_t body_end, next_dash;
        if (len - body_start >= dash_len && memcmp(buf + body_start, dash, dash_len) == 0) {
            body_end = next_dash = body_start;
        }
        else {
            /* The first "\n--boundary" (nl_dash), as the reference's bytes.find. */
            const char *nl = find_bytes(buf + body_start, len - body_start, nl_dash, dash_len + 1);
            if (nl == NULL)
                break; /* the part is not complete in the buffer yet */
            Py_ssize_t hit_at = nl - buf;
            if (hit_at == body_start || buf[hit_at - 1] != '\r')
                break; /* a bare LF before the delimiter: the reference reports MB-WIRE-8 */
            body_end = hit_at - 1;
            next_dash = hit_at + 1;
        }
        Py_ssize_t body_len = body_end - body_start;
        if (body_len > max_part)
            break;

        /* The control fields, by role. */
        int method_at = -1, id_at = -1, status_at = -1, length_at = -1, kept = 0, refuse = 0;
        for (int i = 0; i < n && !refuse; i++) {
            Field *f = &fields[i];
            if (NAME_IS(f->name, f->name_len, "content-id")) {
                refuse = id_at >= 0;
                id_at = i;
                f->own = 1;
            }
            else if (NAME_IS(f->name, f->name_len, "content-length")) {
                refuse = length_at >= 0;
                length_at = i;
            }
            else if (request && NAME_IS(f->name, f->name_len, "http-method")) {
                refuse = method_at >= 0;
                method_at = i;
                f->own = 1;
            }
            else if (!request && NAME_IS(f->name, f->name_len, "http-status-code")) {
                refuse = status_at >= 0;
                status_at = i;
                f->own = 1;
            }
            else if (!request && NAME_IS(f->name, f->name_len, "batch-outcome")) {
                refuse = 1; /* outcomes and their interplay are the reference's */
            }
            else if (request ? in_names(f->name, f->name_len, state.forbidden_request,
                                        state.n_forbidden_request)
                             : in_names(f->name, f->name_len, state.forbidden_response,
                                        state.n_forbidden_response)) {
                refuse = 1;
            }
            kept += !f->own;
        }
        if (refuse || id_at < 0 || !is_content_id(fields[id_at].value, fields[id_at].value_len))
            break;
        if (length_at >= 0) {
            const Field *f = &fields[length_at];
            if (f->value_len == 0 || f->value_len > MAX_LENGTH_DIGITS)
                break;
            Py_ssize_t declared = 0;
            for (Py_ssize_t i = 0; i < f->value_len; i++) {
                unsigned char c = (unsigned char)f->value[i];
                if (c < '0' || c > '9') {
                    declared = -1;
                    break;
                }
                declared = declared * 10 + (c - '0');
            }
            if (declared != body_len || declared > max_part)
                break;
        }
        PyObject *start;
        if (request) {
            if (method_at < 0)
                break;
            const Field *m = &fields[method_at];
            int token = m->value_len > 0;
            for (Py_ssize_t i = 0; token && i < m->value_len; i++)
                token = is_tchar[(unsigned char)m->value[i]];
            if (!token || NAME_IS(m->value, m->value_len, "connect") ||
                NAME_IS(m->value, m->value_len, "trace"))
                break;
            const Field *c = &fields[id_at];
            PyObject *values[6] = {
                PyLong_FromSsize_t(index + 1),
                latin1(m->value, m->value_len),
                latin1(c->value + 1, c->value_len - 2),
                make_fields(fields, n, kept),
                PyLong_FromSsize_t(base + head),
                PyLong_FromSsize_t(base + c->line_at),
            };
            start = make(&state.request_start, values);
        }
        else {
            if (status_at < 0)
                break;
            const Field *s = &fields[status_at];
            const char *v = s->value;
            if (s->value_len != 3 || v[0] < '1' || v[0] > '5' || v[1] < '0' || v[1] > '9' ||
                v[2] < '0' || v[2] > '9')
                break;
            const Field *c = &fields[id_at];
            Py_INCREF(Py_None);
            PyObject *values[6] = {
                PyLong_FromSsize_t(index + 1),
                PyLong_FromLong((v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0')),
                Py_None,
                latin1(c->value + 1, c->value_len - 2),
                make_fields(fields, n, kept),
                PyLong_FromSsize_t(base + head),
            };
            start = make(&state.response_start, values);
        }

        /* The part is valid and whole: its events, then on to the next delimiter. */
        index += 1;
        if (append_steal(events, start) < 0)
            return NULL;
        if (body_len > 0) {
            PyObject *values[2] = {PyLong_FromSsize_t(index),
                                   PySequence_GetSlice(view, body_start, body_end)};
            if (append_steal(events, make(&state.part_data, values)) < 0)
                return NULL;
        }
        PyObject *values[2] = {PyLong_FromSsize_t(index), PyLong_FromSsize_t(body_len)};
        if (append_steal(events, make(&state.part_end, values)) < 0)
            return NULL;
        dash_at = base + next_dash;
        pos = next_dash + dash_len;
    }
    return Py_BuildValue("nnn", pos, index, dash_at);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure((RequestPartStart, slots), (ResponsePartStart, slots), (PartData, slots), "
     "(PartEnd, slots), (Fields, slots), forbidden_request, forbidden_response)"},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "mixbatch.codec._accel",
    "The batch parser's fast path in C; _parser.py is the reference.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    init_tables();
    return PyModule_Create(&module_def);
}
