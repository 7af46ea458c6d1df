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
 * Each part goes through three steps: find_part() locates its header section and the next
 * delimiter, classify_part() checks the header section and decides take or stop, and
 * emit_part() builds its events. The first two only read the buffer; emit_part() alone calls
 * the Python C API, so it alone can fail (for lack of memory), and then scan() returns NULL
 * at once with the exception set.
 *
 * Rules mirrored here (spec section and requirement ID, as in the reference code):
 *   delimiter line  "--" boundary CRLF, no padding (else: the reference decides) MB-WIRE-19/8
 *   field-line      token ":" OWS value OWS, value octets in HTAB / SP..~ / obs-text   MB-PART-11
 *   section         at most max_part_header_bytes octets including its blank line     MB-LIMIT-1
 *                   and at most max_part_fields field lines                           MB-LIMIT-5
 *   body            ends at CRLF "--" boundary; a bare LF before it is a fault        MB-WIRE-8
 *   Content-Length  one line of 1*DIGIT equal to the body octets                      MB-WIRE-17/20
 *   request part    one token Http-Method, not a forbidden method; one Content-Id "<"
 *                   URI-reference ">"; no forbidden field               MB-PART-2/4/10, MB-SUB-3
 *   response part   one Http-Status-Code [1-5]DIGIT DIGIT; one Content-Id; no Batch-Outcome;
 *                   no forbidden field                                  MB-RESP-2/3/4/5
 * The limits are read from the parser's Limits object on each call and the forbidden names
 * come from _parts.py through configure(): this file has no limit or name list of its own.
 *
 * Module state. Initialisation is multi-phase (PEP 489): every import of the module, in every
 * interpreter, gets its own ModuleState -- the event classes, their slot descriptors, the
 * forbidden names, interned attribute names and the octet tables. configure() fills it once
 * and nothing changes it afterwards, so the module is safe under a per-interpreter GIL and,
 * with configure() behind a lock, without a GIL.
 *
 * Events are the codec's own frozen, slotted dataclasses. configure() receives the classes and
 * their slot names; an event is allocated with its class's tp_alloc, as object.__new__ does,
 * and each slot is set through its member descriptor's __set__, as object.__setattr__ does.
 * That skips the Python-level __init__, whose checks are implied by the checks here. Only
 * public API is used; _accelerator.py checks at import that the slots named are all the slots
 * each class has, so that no event can miss an attribute.
 */
#define _GNU_SOURCE /* memmem */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* ---- module state ----------------------------------------------------------------------- */

/* The widest events, RequestPartStart and ResponsePartStart, have six slots. */
#define MAX_SLOTS 6

/* One event class: its allocator and the member descriptors of its slots, in the order
 * new_event() receives the values. */
typedef struct {
    PyTypeObject *type;
    allocfunc alloc;
    PyObject *slots[MAX_SLOTS];
    int count;
} Shape;

/* Octet classes, one bit each, in ModuleState.octets. */
enum {
    TCHAR = 1, /* RFC 9110 tchar */
    VALUE = 2, /* a field-value octet: HTAB, SP, VCHAR, obs-text (no CR, LF, other CTL, DEL) */
    URI = 4,   /* RFC 3986 URI-reference characters, less "%", which starts a pct-encoded */
    HEX = 8,   /* HEXDIG */
};

typedef struct {
    Shape request_start;     /* index, method, target, fields, offset, target_offset */
    Shape response_start;    /* index, status, outcome, content_id, fields, offset */
    Shape part_data;         /* index, data */
    Shape part_end;          /* index, length */
    Shape fields;            /* _pairs */
    descrsetfunc set_member; /* __set__ of member descriptors */
    PyObject *forbidden_request; /* tuples of lower-case bytes names */
    PyObject *forbidden_response;
    PyObject *forbidden_methods;
    PyObject *max_parts; /* interned names of the Limits attributes scan() reads */
    PyObject *max_part_header_bytes;
    PyObject *max_part_fields;
    PyObject *max_part_bytes;
    unsigned char octets[256];
    int configured;
#ifdef Py_GIL_DISABLED
    PyMutex lock; /* orders configure() before any scan() that sees it done */
#endif
} ModuleState;

#define N_SHAPES 5

static inline ModuleState *
get_state(PyObject *module)
{
    return (ModuleState *)PyModule_GetState(module);
}

static inline Shape *
shape_at(ModuleState *st, int i)
{
    Shape *shapes[N_SHAPES] = {&st->request_start, &st->response_start, &st->part_data,
                               &st->part_end, &st->fields};
    return shapes[i];
}

static void
init_octets(unsigned char *octets)
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

/* Drop what configure() loaded (all of it, or the part it got to before failing). */
static void
release_configuration(ModuleState *st)
{
    st->configured = 0;
    for (int i = 0; i < N_SHAPES; i++) {
        Shape *shape = shape_at(st, i);
        Py_CLEAR(shape->type);
        for (int j = 0; j < MAX_SLOTS; j++)
            Py_CLEAR(shape->slots[j]);
        shape->count = 0;
    }
    Py_CLEAR(st->forbidden_request);
    Py_CLEAR(st->forbidden_response);
    Py_CLEAR(st->forbidden_methods);
}

static int
module_traverse(PyObject *module, visitproc visit, void *arg)
{
    ModuleState *st = get_state(module);
    for (int i = 0; i < N_SHAPES; i++) {
        Shape *shape = shape_at(st, i);
        Py_VISIT(shape->type);
        for (int j = 0; j < MAX_SLOTS; j++)
            Py_VISIT(shape->slots[j]);
    }
    Py_VISIT(st->forbidden_request);
    Py_VISIT(st->forbidden_response);
    Py_VISIT(st->forbidden_methods);
    Py_VISIT(st->max_parts);
    Py_VISIT(st->max_part_header_bytes);
    Py_VISIT(st->max_part_fields);
    Py_VISIT(st->max_part_bytes);
    return 0;
}

static int
module_clear(PyObject *module)
{
    ModuleState *st = get_state(module);
    release_configuration(st);
    Py_CLEAR(st->max_parts);
    Py_CLEAR(st->max_part_header_bytes);
    Py_CLEAR(st->max_part_fields);
    Py_CLEAR(st->max_part_bytes);
    return 0;
}

static void
module_free(void *module)
{
    (void)module_clear((PyObject *)module);
}

static int
module_exec(PyObject *module)
{
    ModuleState *st = get_state(module);
    init_octets(st->octets);
    st->set_member = (descrsetfunc)PyType_GetSlot(&PyMemberDescr_Type, Py_tp_descr_set);
    if (st->set_member == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "member descriptors have no __set__");
        return -1;
    }
    /* On failure module_clear() releases the names already made. */
    if ((st->max_parts = PyUnicode_InternFromString("max_parts")) == NULL ||
        (st->max_part_header_bytes = PyUnicode_InternFromString("max_part_header_bytes")) == NULL ||
        (st->max_part_fields = PyUnicode_InternFromString("max_part_fields")) == NULL ||
        (st->max_part_bytes = PyUnicode_InternFromString("max_part_bytes")) == NULL)
        return -1;
    return 0;
}

/* ---- configure -------------------------------------------------------------------------- */

/* From (class, slot names): the class's allocator and the member descriptors of those slots,
 * as getattr(class, name) gives them. */
static int
load_shape(Shape *shape, PyObject *spec, int count)
{
    PyObject *type, *names;
    if (!PyArg_ParseTuple(spec, "O!O!;configure() expects (class, tuple of slot names)",
                          &PyType_Type, &type, &PyTuple_Type, &names))
        return -1;
    if (PyTuple_GET_SIZE(names) != count) {
        PyErr_Format(PyExc_ValueError, "configure(): %S needs %d slot names, got %zd", type,
                     count, PyTuple_GET_SIZE(names));
        return -1;
    }
    shape->alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc);
    if (shape->alloc == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "configure(): %S has no tp_alloc", type);
        return -1;
    }
    shape->type = (PyTypeObject *)Py_NewRef(type);
    for (int i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        PyObject *descr = PyObject_GetAttr(type, name);
        if (descr == NULL)
            return -1;
        shape->slots[i] = descr; /* owned from here: release_configuration() drops it */
        if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "configure(): %S.%S is not a slot", type, name);
            return -1;
        }
    }
    shape->count = count;
    return 0;
}

static int
load_names(PyObject **target, PyObject *names)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        if (!PyBytes_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_SetString(PyExc_TypeError, "configure(): names must be lower-case bytes");
            return -1;
        }
    }
    *target = Py_NewRef(names);
    return 0;
}

static int
load_configuration(ModuleState *st, PyObject *args)
{
    PyObject *shapes[N_SHAPES], *forbidden_request, *forbidden_response, *forbidden_methods;
    if (!PyArg_ParseTuple(args, "OOOOOO!O!O!:configure", &shapes[0], &shapes[1], &shapes[2],
                          &shapes[3], &shapes[4], &PyTuple_Type, &forbidden_request,
                          &PyTuple_Type, &forbidden_response, &PyTuple_Type, &forbidden_methods))
        return -1;
    static const int counts[N_SHAPES] = {6, 6, 2, 2, 1};
    for (int i = 0; i < N_SHAPES; i++)
        if (load_shape(shape_at(st, i), shapes[i], counts[i]) < 0)
            return -1;
    if (load_names(&st->forbidden_request, forbidden_request) < 0 ||
        load_names(&st->forbidden_response, forbidden_response) < 0 ||
        load_names(&st->forbidden_methods, forbidden_methods) < 0)
        return -1;
    return 0;
}

PyDoc_STRVAR(configure_doc,
"configure(request_start, response_start, part_data, part_end, fields,\n"
"          forbidden_request, forbidden_response, forbidden_methods, /)\n"
"--\n\n"
"Bind this module to the codec's classes, once. The first five arguments are\n"
"(class, slot names) for RequestPartStart, ResponsePartStart, PartData, PartEnd and\n"
"Fields, the names in the order scan() fills them; the last three are tuples of\n"
"lower-case bytes names. A second call raises RuntimeError.");

static PyObject *
configure(PyObject *module, PyObject *args)
{
    ModuleState *st = get_state(module);
    int rc = -1;
#ifdef Py_GIL_DISABLED
    PyMutex_Lock(&st->lock);
#endif
    if (st->configured)
        PyErr_SetString(PyExc_RuntimeError, "mixbatch.codec._accel is already configured");
    else if ((rc = load_configuration(st, args)) < 0)
        release_configuration(st); /* nothing half-loaded stays behind */
    else
        st->configured = 1;
#ifdef Py_GIL_DISABLED
    PyMutex_Unlock(&st->lock);
#endif
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static int
is_configured(ModuleState *st)
{
#ifdef Py_GIL_DISABLED
    PyMutex_Lock(&st->lock);
    int configured = st->configured;
    PyMutex_Unlock(&st->lock);
    return configured;
#else
    return st->configured;
#endif
}

/* ---- the scanner's inputs and one part ---------------------------------------------------- */

typedef struct {
    const char *name;
    Py_ssize_t name_len;
    const char *value;
    Py_ssize_t value_len;
    Py_ssize_t line_at; /* offset of the line in the buffer */
    int own;            /* a control field the start event carries by itself */
} Field;

/* Field lines a Scanner holds before reserve_fields() allocates room for more. */
#define FIELDS_ON_STACK 32

/* What one scan() call works on: the parser's buffer and settings, and where events go. */
typedef struct {
    ModuleState *st;
    PyObject *buf_obj;  /* bytes */
    const char *buf;
    Py_ssize_t len;
    Py_ssize_t base;    /* absolute offset of buf[0] */
    int request;        /* request parts (Http-Method) or response parts (Http-Status-Code) */
    const char *nl_dash; /* "\n--" boundary: the reference's delimiter search string */
    Py_ssize_t nl_dash_len;
    Py_ssize_t max_parts, max_header, max_fields, max_part; /* the parser's Limits */
    Field *fields;      /* local, or grown by reserve_fields() for a longer section */
    Py_ssize_t fields_room;
    Field local[FIELDS_ON_STACK];
    PyObject *view;     /* memoryview of buf for PartData, made for the first body */
    PyObject *events;   /* list */
} Scanner;

/* One part, as find_part() and classify_part() see it. Offsets are into the buffer. */
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

static const char *
find_bytes(const char *hay, Py_ssize_t hay_len, const char *needle, Py_ssize_t needle_len)
{
    if (hay_len < needle_len)
        return NULL;
    return memmem(hay, (size_t)hay_len, needle, (size_t)needle_len);
}

/* ---- find: the part's header section and the delimiter that ends its body ----------------- */

/* 1 when a whole part starts at pos (just after a dash-boundary) and ends before a plain
 * CRLF dash-boundary inside the buffer and the limits; 0 to stop. */
static int
find_part(const Scanner *sc, Py_ssize_t pos, Part *part)
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

/* Whether text is one of a tuple of lower-case bytes names, ignoring ASCII case. */
static int
in_names(const char *text, Py_ssize_t len, PyObject *names)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (name_is(text, len, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name)))
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
    const unsigned char *octets = sc->st->octets;
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
    if (len < 2 || v[0] != '<' || v[len - 1] != '>')
        return 0;
    for (Py_ssize_t i = 1; i < len - 1; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '%') {
            if (i + 2 >= len - 1 || !(octets[(unsigned char)v[i + 1]] & HEX) ||
                !(octets[(unsigned char)v[i + 2]] & HEX))
                return 0;
            i += 2;
        }
        else if (!(octets[c] & URI))
            return 0;
    }
    return 1;
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
        if (!(sc->st->octets[(unsigned char)m->value[i]] & TCHAR))
            return 0;
    return !in_names(m->value, m->value_len, sc->st->forbidden_methods);
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

/* 1 when the reference would take the part found as it is, with the events emit_part()
 * builds; 0 to stop before it. */
static int
classify_part(const Scanner *sc, Part *part)
{
    Py_ssize_t n = split_fields(sc, part);
    if (n <= 0)
        return 0;
    PyObject *forbidden = sc->request ? sc->st->forbidden_request : sc->st->forbidden_response;
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
        else if (in_names(f->name, f->name_len, forbidden))
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
        !is_content_id(sc->st->octets, sc->fields[id_at].value, sc->fields[id_at].value_len))
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

/* ---- emit: the part's events ---------------------------------------------------------------- */

/* Append a new instance of shape->type whose slots hold values[] (new references, released
 * here either way). A NULL among them means building it failed with the exception set: the
 * values after it were never made, and this returns -1 without touching the list. */
static int
append_event(const Scanner *sc, const Shape *shape, PyObject **values)
{
    PyObject *event = NULL;
    int built = 1;
    for (int i = 0; i < shape->count; i++)
        built = built && values[i] != NULL;
    if (built && (event = shape->alloc(shape->type, 0)) != NULL) {
        for (int i = 0; i < shape->count; i++) {
            if (sc->st->set_member(shape->slots[i], event, values[i]) < 0) {
                Py_CLEAR(event);
                break;
            }
        }
    }
    for (int i = 0; i < shape->count; i++)
        Py_XDECREF(values[i]);
    if (event == NULL)
        return -1;
    int rc = PyList_Append(sc->events, event);
    Py_DECREF(event);
    return rc;
}

static PyObject *
latin1(const char *text, Py_ssize_t len)
{
    return PyUnicode_DecodeLatin1(text, len, NULL);
}

/* The Fields object of every field line not marked own, in order. */
static PyObject *
new_fields(const Scanner *sc, const Part *part)
{
    PyObject *pairs = PyTuple_New(part->kept);
    if (pairs == NULL)
        return NULL;
    for (Py_ssize_t i = 0, j = 0; i < part->n_fields; i++) {
        const Field *f = &sc->fields[i];
        if (f->own)
            continue;
        PyObject *name = latin1(f->name, f->name_len);
        PyObject *value = name == NULL ? NULL : latin1(f->value, f->value_len);
        PyObject *pair = value == NULL ? NULL : PyTuple_Pack(2, name, value);
        Py_XDECREF(name);
        Py_XDECREF(value);
        if (pair == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        PyTuple_SET_ITEM(pairs, j++, pair);
    }
    PyObject *event = NULL;
    const Shape *shape = &sc->st->fields;
    if ((event = shape->alloc(shape->type, 0)) != NULL &&
        sc->st->set_member(shape->slots[0], event, pairs) < 0)
        Py_CLEAR(event);
    Py_DECREF(pairs);
    return event;
}

/* The start event, then PartData when the body is not empty, then PartEnd. Each value is
 * made only while every one before it was, so no call runs with an exception set. */
static int
emit_part(Scanner *sc, Py_ssize_t index, const Part *part)
{
    const Field *id = &sc->fields[part->id_at], *control = &sc->fields[part->control_at];
    PyObject *start[MAX_SLOTS] = {NULL};
    if (sc->request) {
        (void)((start[0] = PyLong_FromSsize_t(index)) &&
               (start[1] = latin1(control->value, control->value_len)) &&
               (start[2] = latin1(id->value + 1, id->value_len - 2)) &&
               (start[3] = new_fields(sc, part)) &&
               (start[4] = PyLong_FromSsize_t(sc->base + part->head)) &&
               (start[5] = PyLong_FromSsize_t(sc->base + id->line_at)));
        if (append_event(sc, &sc->st->request_start, start) < 0)
            return -1;
    }
    else {
        (void)((start[0] = PyLong_FromSsize_t(index)) &&
               (start[1] = PyLong_FromLong(part->status)) && (start[2] = Py_NewRef(Py_None)) &&
               (start[3] = latin1(id->value + 1, id->value_len - 2)) &&
               (start[4] = new_fields(sc, part)) &&
               (start[5] = PyLong_FromSsize_t(sc->base + part->head)));
        if (append_event(sc, &sc->st->response_start, start) < 0)
            return -1;
    }
    Py_ssize_t body_len = part->body_end - part->body_start;
    if (body_len > 0) {
        if (sc->view == NULL && (sc->view = PyMemoryView_FromObject(sc->buf_obj)) == NULL)
            return -1;
        PyObject *data[2] = {NULL, NULL};
        (void)((data[0] = PyLong_FromSsize_t(index)) &&
               (data[1] = PySequence_GetSlice(sc->view, part->body_start, part->body_end)));
        if (append_event(sc, &sc->st->part_data, data) < 0)
            return -1;
    }
    PyObject *end[2] = {NULL, NULL};
    (void)((end[0] = PyLong_FromSsize_t(index)) && (end[1] = PyLong_FromSsize_t(body_len)));
    return append_event(sc, &sc->st->part_end, end);
}

/* ---- scan ----------------------------------------------------------------------------------- */

/* A Limits attribute as a Py_ssize_t; one too large for it is as good as unbounded. */
static int
read_limit(PyObject *limits, PyObject *name, Py_ssize_t *out)
{
    PyObject *value = PyObject_GetAttr(limits, name);
    if (value == NULL)
        return -1;
    *out = PyLong_AsSsize_t(value);
    Py_DECREF(value);
    if (*out == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        *out = PY_SSIZE_T_MAX;
    }
    return 0;
}

/* Fill sc from scan()'s arguments; -1 with the exception set when they are not usable. */
static int
load_scanner(Scanner *sc, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t *pos,
             Py_ssize_t *index)
{
    if (nargs != 8) {
        PyErr_Format(PyExc_TypeError, "scan() takes 8 arguments (%zd given)", nargs);
        return -1;
    }
    PyObject *buf = args[0], *nl_dash = args[5], *limits = args[6], *events = args[7];
    if (!PyBytes_Check(buf) || !PyBytes_Check(nl_dash) || !PyList_Check(events)) {
        PyErr_SetString(PyExc_TypeError, "scan() expects bytes, ..., bytes, Limits, list");
        return -1;
    }
    sc->buf_obj = buf;
    sc->buf = PyBytes_AS_STRING(buf);
    sc->len = PyBytes_GET_SIZE(buf);
    sc->nl_dash = PyBytes_AS_STRING(nl_dash);
    sc->nl_dash_len = PyBytes_GET_SIZE(nl_dash);
    sc->events = events;
    if ((*pos = PyLong_AsSsize_t(args[1])) == -1 && PyErr_Occurred())
        return -1;
    if ((sc->base = PyLong_AsSsize_t(args[2])) == -1 && PyErr_Occurred())
        return -1;
    if ((*index = PyLong_AsSsize_t(args[3])) == -1 && PyErr_Occurred())
        return -1;
    if ((sc->request = PyObject_IsTrue(args[4])) < 0)
        return -1;
    if (*pos < 0 || *pos > sc->len || *index < -1 || sc->nl_dash_len < 4 ||
        memcmp(sc->nl_dash, "\n--", 3) != 0) {
        PyErr_SetString(PyExc_ValueError, "scan(): position, index or delimiter out of range");
        return -1;
    }
    ModuleState *st = sc->st;
    if (read_limit(limits, st->max_parts, &sc->max_parts) < 0 ||
        read_limit(limits, st->max_part_header_bytes, &sc->max_header) < 0 ||
        read_limit(limits, st->max_part_fields, &sc->max_fields) < 0 ||
        read_limit(limits, st->max_part_bytes, &sc->max_part) < 0)
        return -1;
    return 0;
}

/* Room in sc->fields for n field lines; -1 with MemoryError set when there is none. */
static int
reserve_fields(Scanner *sc, Py_ssize_t n)
{
    if (n <= sc->fields_room)
        return 0;
    Py_ssize_t room = n / 2 < sc->fields_room ? sc->fields_room * 2 : n;
    Field *grown = PyMem_New(Field, room);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (sc->fields != sc->local)
        PyMem_Free(sc->fields);
    sc->fields = grown;
    sc->fields_room = room;
    return 0;
}

PyDoc_STRVAR(scan_doc,
"scan(buf, pos, base, index, request, nl_dash, limits, events, /)\n"
"--\n\n"
"Parse the whole, plainly valid parts of ``buf`` from ``pos``, a position just after a\n"
"dash-boundary, appending their events to ``events``. ``base`` is the absolute offset of\n"
"``buf[0]``, ``index`` the last part's index, ``request`` the role, ``nl_dash`` the bytes\n"
"\"\\n--\" boundary and ``limits`` the parser's Limits. Returns (pos, index, dash_at): the\n"
"position after the last dash-boundary consumed, the last part index, and that\n"
"dash-boundary's absolute offset (-1 when no part was consumed).");

static PyObject *
scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Scanner sc = {.st = get_state(module), .fields_room = FIELDS_ON_STACK};
    sc.fields = sc.local;
    if (!is_configured(sc.st)) {
        PyErr_SetString(PyExc_RuntimeError, "mixbatch.codec._accel is not configured");
        return NULL;
    }
    Py_ssize_t pos, index, dash_at = -1;
    if (load_scanner(&sc, args, nargs, &pos, &index) < 0)
        return NULL;
    int failed = 0;
    Part part;
    /* index + 1 >= max_parts: the reference raises the part-count limit. */
    while (index + 1 < sc.max_parts && find_part(&sc, pos, &part)) {
        if (reserve_fields(&sc, part.n_lines) < 0) {
            failed = 1;
            break;
        }
        if (!classify_part(&sc, &part))
            break;
        if (emit_part(&sc, index + 1, &part) < 0) {
            failed = 1;
            break;
        }
        index += 1;
        dash_at = sc.base + part.next_dash;
        pos = part.next_dash + sc.nl_dash_len - 1;
    }
    if (sc.fields != sc.local)
        PyMem_Free(sc.fields);
    Py_XDECREF(sc.view);
    if (failed)
        return NULL;
    return Py_BuildValue("nnn", pos, index, dash_at);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, configure_doc},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    /* No process-wide state: every interpreter gets its own ModuleState. */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    /* scan() reads state that configure() wrote once, under a lock; it shares nothing else. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mixbatch.codec._accel",
    .m_doc = "The batch parser's fast path in C; _parser.py is the reference.",
    .m_size = sizeof(ModuleState),
    .m_methods = methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    return PyModuleDef_Init(&module_def);
}
