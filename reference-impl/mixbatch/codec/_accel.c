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
 * Each part goes through three steps: find (accel_find_part) locates its header section and
 * the next delimiter, classify (accel_classify_part) checks the header section and decides
 * take or stop -- both in _accel_check.c, shared declarations in _accel.h -- and emit_part(),
 * here, builds its events. The first two only read the buffer; emit_part() alone calls the
 * Python C API, so it alone can fail (for lack of memory), and then scan() returns NULL at
 * once with the exception set.
 *
 * Rules mirrored in the checks (spec section and requirement ID, as in the reference code):
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
 * come from _parts.py through configure(): the extension has no limit or name list of its own.
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
#include "_accel.h"

#include <string.h>

/* ---- module state ----------------------------------------------------------------------- */

/* The widest events, RequestPartStart and ResponsePartStart, have six slots. */
#define MAX_SLOTS 6

/* One event class: its allocator and the member descriptors of its slots, in the order
 * append_event() receives the values. */
typedef struct {
    PyTypeObject *type;
    allocfunc alloc;
    PyObject *slots[MAX_SLOTS];
    int count;
} Shape;

struct ModuleState {
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
};

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
    accel_init_octets(st->octets);
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
    /* A Fields holds one tuple of str pairs and never changes, so it can be in no reference
     * cycle: the cyclic collector need not visit it, nor (once it sees that) the part's header
     * tuple that holds it. A batch keeps every part until its last one ran, and these objects
     * were most of what each full collection during a large batch walked. */
    if (event != NULL && PyObject_GC_IsTracked(event))
        PyObject_GC_UnTrack(event);
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
    sc->octets = st->octets;
    sc->forbidden_fields = sc->request ? st->forbidden_request : st->forbidden_response;
    sc->forbidden_methods = st->forbidden_methods;
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
    while (index + 1 < sc.max_parts && accel_find_part(&sc, pos, &part)) {
        if (reserve_fields(&sc, part.n_lines) < 0) {
            failed = 1;
            break;
        }
        if (!accel_classify_part(&sc, &part))
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

/* ---- response_part: the writer's fast path (_accel_write.c) ----------------------------- */

PyDoc_STRVAR(response_part_doc,
"response_part(dash, first, status, content_id, fields, body, not_allowed, /)\n"
"--\n\n"
"The octets BatchWriter.response_part writes for a part that ran: ``dash`` is the bytes\n"
"\"--\" boundary, ``first`` whether the part opens the batch, ``fields`` a tuple or list of\n"
"(name, value) str pairs, ``body`` bytes and ``not_allowed`` the lower-case bytes names no\n"
"response part may carry. Returns None, writing nothing, for anything the reference writer\n"
"would refuse or that is not its plain case; needs no configure().");

static PyObject *
response_part(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return accel_response_part(get_state(module)->octets, args, nargs);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, configure_doc},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, scan_doc},
    {"response_part", (PyCFunction)(void (*)(void))response_part, METH_FASTCALL,
     response_part_doc},
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
    .m_doc = "The codec's fast path in C; _parser.py and _writer.py are the reference.",
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
