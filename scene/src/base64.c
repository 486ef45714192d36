/* The base64 decoder of the .vtu reader (RFC 4648's alphabet, '='
 * padding), quantum by quantum and whitespace skipped, so that a block's
 * header can be decoded before its size is trusted and the data after it
 * straight into their own buffer. */
#include "tetmesh_internal.h"

static int b64_val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    if (c == '=')
        return 64;
    return -1;
}

/* `want` bytes into out: 0, or -1 at a bad character or the end of the data. */
int b64_get(b64 *b, uint8_t *out, uint64_t want)
{
    uint64_t o = 0;
    while (o < want && b->lpos < b->nleft)
        out[o++] = b->left[b->lpos++];
    while (o < want) {
        int q[4], k = 0;
        while (k < 4) {
            if (b->i >= b->end)
                return -1;
            char c = b->s[b->i++];
            if (is_ws(c))
                continue;
            int v = b64_val(c);
            if (v < 0)
                return -1;
            q[k++] = v;
        }
        if (q[0] == 64 || q[1] == 64 || (q[2] == 64 && q[3] != 64))
            return -1;
        uint32_t bits = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)(q[2] & 63) << 6 |
                        (uint32_t)(q[3] & 63);
        int nb = q[2] == 64 ? 1 : q[3] == 64 ? 2 : 3;
        for (int j = 0; j < nb; j++)
            b->left[j] = (uint8_t)(bits >> (16 - 8 * j));
        b->nleft = nb;
        b->lpos = 0;
        while (o < want && b->lpos < b->nleft)
            out[o++] = b->left[b->lpos++];
    }
    return 0;
}
