/* What a module descriptor must hold before eddy keeps it. A descriptor
 * comes from a library eddy did not build, so every string and count in it
 * is untrusted: a NULL name, an unterminated count or a range upside down
 * is refused with one message naming the module and the field, instead of
 * crashing later in the scene loader or `eddy modules`. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* A name or label: present, 1..max-1 bytes (strnlen never reads past
 * them), printable ASCII. */
static bool text_ok(const char *s, size_t max)
{
    if (!s)
        return false;
    size_t n = strnlen(s, max);
    if (n == 0 || n >= max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

/* A module's name is a scene key and part of file names: letters, digits,
 * '_' and '-', 1..63 bytes. */
static bool module_name_ok(const char *s)
{
    if (!text_ok(s, 64))
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-'))
            return false;
    return true;
}

static eddy_result refuse(eddy_engine *e, const char *from, const char *field, const char *expected)
{
    eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "module %s: %s: expected %s", from, field, expected);
    return EDDY_ERROR_INVALID_ARGUMENT;
}

/* The default and range of a scalar or vec3 parameter. */
static bool param_values_ok(const eddy_param_info *p)
{
    if (isnan(p->min) || isnan(p->max) || p->min > p->max)
        return false;
    uint32_t n = p->type == EDDY_PARAM_VEC3 ? 3 : 1;
    for (uint32_t a = 0; a < n; a++) {
        double d = p->def[a];
        if (!isfinite(d) || d < p->min || d > p->max)
            return false;
        if (p->type == EDDY_PARAM_INT && d != floor(d))
            return false;
        if (p->type == EDDY_PARAM_BOOL && d != 0 && d != 1)
            return false;
    }
    return true;
}

/* A list's def is its shape, which sizes what the scene parser accepts and
 * allocates. */
static bool list_shape_ok(const eddy_param_info *p)
{
    double group = p->def[0], most = p->def[1];
    return group >= 1 && group <= EDDY_PARAM_LIST_MAX_GROUP && group == (double)(uint32_t)group && most >= 1 &&
           most <= EDDY_PARAM_LIST_MAX_ENTRIES && most == (double)(uint32_t)most && !isnan(p->min) &&
           !isnan(p->max) && p->min <= p->max;
}

static eddy_result check_params(eddy_engine *e, const eddy_module_desc *m, const char *from)
{
    char field[96];
    if (m->param_count > EDDY_MAX_PARAMS || (m->param_count && !m->params))
        return refuse(e, from, "params / param_count", "at most 64 parameters, params given when param_count > 0");
    for (uint32_t i = 0; i < m->param_count; i++) {
        const eddy_param_info *p = &m->params[i];
        snprintf(field, sizeof field, "params[%u]", i);
        if (!text_ok(p->name, 64))
            return refuse(e, from, field, "a name of 1..63 printable bytes");
        snprintf(field, sizeof field, "parameter '%s'", p->name);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(m->params[j].name, p->name))
                return refuse(e, from, field, "a name no other parameter has");
        if (p->type < EDDY_PARAM_FLOAT || p->type > EDDY_PARAM_LIST)
            return refuse(e, from, field, "a type of EDDY_PARAM_FLOAT, _INT, _BOOL, _VEC3 or _LIST");
        if (!text_ok(p->unit, 64) || !text_ok(p->doc, 1024))
            return refuse(e, from, field, "a unit (1..63 bytes, \"1\" for none) and a doc line (1..1023 bytes)");
        if (p->type == EDDY_PARAM_LIST ? !list_shape_ok(p) : !param_values_ok(p))
            return refuse(e, from, field, p->type == EDDY_PARAM_LIST
                          ? "def[0], the numbers an entry, a whole number in 1..16, def[1], the most entries, a "
                            "whole number in 1..65536, and min <= max"
                          : "min <= max and a finite default inside [min, max] (whole for int, 0 or 1 for bool)");
    }
    return EDDY_OK;
}

static eddy_result check_ports(eddy_engine *e, const eddy_module_desc *m, const char *from)
{
    if (m->input_count > EDDY_MAX_PORTS || m->output_count > EDDY_MAX_PORTS ||
        (m->input_count && (!m->inputs || !m->set_input || !m->get_input)) ||
        (m->output_count && (!m->outputs || !m->read_outputs)))
        return refuse(e, from, "inputs / outputs", "at most 16 of each, set_input and get_input with inputs, "
                      "read_outputs with outputs");
    if (!m->reach != !m->set_count)
        return refuse(e, from, "reach / set_count", "both or neither");
    if (m->declare_parts && !m->reach)
        return refuse(e, from, "declare_parts", "with reach and set_count only");
    char field[64];
    for (uint32_t i = 0; i < m->input_count + m->output_count; i++) {
        bool in = i < m->input_count;
        const eddy_port_info *p = in ? &m->inputs[i] : &m->outputs[i - m->input_count];
        snprintf(field, sizeof field, "%s[%u]", in ? "inputs" : "outputs", in ? i : i - m->input_count);
        if (!text_ok(p->name, 64) || (p->type != EDDY_PORT_FLOAT && p->type != EDDY_PORT_VEC3) ||
            !text_ok(p->unit, 64) || !text_ok(p->doc, 1024))
            return refuse(e, from, field, "a name and a unit of 1..63 printable bytes, a doc line, and a type "
                          "EDDY_PORT_FLOAT or EDDY_PORT_VEC3");
    }
    return EDDY_OK;
}

static eddy_result check_slots(eddy_engine *e, const eddy_module_desc *m, const char *from)
{
    if (m->slot_count > EDDY_MAX_SLOTS || (m->slot_count && !m->slots))
        return refuse(e, from, "slots / slot_count", "at most 8 slots, slots given when slot_count > 0");
    char field[64];
    for (uint32_t i = 0; i < m->slot_count; i++) {
        const eddy_slot_info *s = &m->slots[i];
        snprintf(field, sizeof field, "slots[%u]", i);
        if (!text_ok(s->name, 64) || !text_ok(s->doc, 1024) || s->max < 1 || s->max > EDDY_MAX_SLOT_SETS ||
            s->min > s->max || (i == 0 && s->min < 1))
            return refuse(e, from, field, "a name of 1..63 bytes, a doc line, and 1 <= max <= 16 sets with "
                          "min <= max (the first slot at least one)");
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(m->slots[j].name, s->name))
                return refuse(e, from, field, "a name no other slot has");
    }
    return EDDY_OK;
}

eddy_result eddy_module_check(eddy_engine *e, const eddy_module_desc *m, const char *from)
{
    if (!module_name_ok(m->name))
        return refuse(e, from, "name", "1..63 bytes of letters, digits, '_' and '-'");
    if (!text_ok(m->version, 64) || !text_ok(m->summary, 1024))
        return refuse(e, from, "version / summary", "a version (1..63 bytes) and a one-line summary");
    if (!m->create || !m->destroy || !m->declare_step)
        return refuse(e, from, "create / destroy / declare_step", "all three functions");
    if (m->shared_buffer_count > EDDY_MAX_PARAMS || (m->shared_buffer_count && !m->shared_buffers))
        return refuse(e, from, "shared_buffers", "at most 64 names, given when shared_buffer_count > 0");
    for (uint32_t i = 0; i < m->shared_buffer_count; i++)
        if (!text_ok(m->shared_buffers[i], 64))
            return refuse(e, from, "shared_buffers", "names of 1..63 printable bytes");
    if (!m->stable_dt != !m->set_dt)
        return refuse(e, from, "stable_dt / set_dt", "both or neither (adaptive stepping needs the pair)");
    eddy_result r = check_params(e, m, from);
    if (r == EDDY_OK)
        r = check_ports(e, m, from);
    if (r == EDDY_OK)
        r = check_slots(e, m, from);
    return r;
}
