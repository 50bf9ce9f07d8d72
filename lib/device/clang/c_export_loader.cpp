// CLANG device, C export: the safetensors reader that NAME_load compiles into NAME.c. It is C11
// with no dependency (stdio, stdlib, string), reads only the header and the weights' byte
// ranges, and checks every weight's dtype, shape and size before it writes a byte, so a file of
// another model is refused with the weight and the field that differ, and changes nothing.
#include "device/clang/c_export_loader.h"

namespace tg {

std::string safetensors_loader_c(const std::string& N) {
  // NAME_ is spliced in where a symbol needs the library's prefix
  static constexpr const char* kBody = R"C(
static int @fail(@* m, const char* what, const char* detail) {
  size_t n = 0; /* what, then detail, cut to fit */
  for (const char* s = what; *s && n + 1 < sizeof m->error; ++s) m->error[n++] = *s;
  for (const char* s = detail ? detail : ""; *s && n + 1 < sizeof m->error; ++s) m->error[n++] = *s;
  m->error[n] = 0;
  return -1;
}

static const char* @ws(const char* p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') ++p;
  return p;
}

/* A JSON string at p (after its quote) into out (cut at cap - 1); returns past the closing quote,
   or NULL. Escapes other than \" \\ \/ and the control letters become '?'. */
static const char* @string(const char* p, char* out, size_t cap) {
  size_t n = 0;
  for (; *p && *p != '"'; ++p) {
    char c = *p;
    if (c == '\\') {
      c = *++p;
      if (!c) return NULL;
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f'
        : c == '"' || c == '\\' || c == '/' ? c : '?';
      if (p[0] == 'u') p += p[1] && p[2] && p[3] && p[4] ? 4 : 0;
    }
    if (n + 1 < cap) out[n++] = c;
  }
  if (cap) out[n] = 0;
  return *p == '"' ? p + 1 : NULL;
}

/* Past one JSON value of any kind; NULL where the text is not JSON. */
static const char* @skip(const char* p, int depth) {
  p = @ws(p);
  if (depth > 64) return NULL;
  if (*p == '"') return @string(p + 1, NULL, 0);
  if (*p == '{' || *p == '[') {
    const char close = *p == '{' ? '}' : ']';
    p = @ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (close == '}') {
        if (*p != '"' || !(p = @string(p + 1, NULL, 0))) return NULL;
        p = @ws(p);
        if (*p++ != ':') return NULL;
      }
      if (!(p = @skip(p, depth + 1))) return NULL;
      p = @ws(p);
      if (*p == close) return p + 1;
      if (*p++ != ',') return NULL;
      p = @ws(p);
    }
  }
  const char* q = p;
  while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') ++p;
  return p == q ? NULL : p;
}

/* A JSON array of non-negative integers: at most cap of them into out, the count into *n. */
static const char* @ints(const char* p, long long* out, int cap, int* n) {
  p = @ws(p);
  if (*p++ != '[') return NULL;
  *n = 0;
  p = @ws(p);
  if (*p == ']') return p + 1;
  for (;;) {
    char* end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0) return NULL;
    if (*n < cap) out[*n] = v;
    ++*n;
    p = @ws(end);
    if (*p == ']') return p + 1;
    if (*p++ != ',') return NULL;
    p = @ws(p);
  }
}

int @load(@* m, const char* path) {
  unsigned char len[8];
  FILE* f = fopen(path, "rb");
  if (!f) return @fail(m, "cannot open ", path);
  if (fread(len, 1, 8, f) != 8) {
    fclose(f);
    return @fail(m, "not a safetensors file (shorter than 8 bytes): ", path);
  }
  unsigned long long hlen = 0;
  for (int i = 7; i >= 0; --i) hlen = hlen << 8 | len[i];
  char* h = hlen < 100000000ull ? (char*)malloc((size_t)hlen + 1) : NULL;
  if (!h || fread(h, 1, (size_t)hlen, f) != hlen) {
    free(h);
    fclose(f);
    return @fail(m, "not a safetensors file (its header does not fit the file): ", path);
  }
  h[hlen] = 0;
  /* first every weight is found and checked, then all are read: a file that does not fit
     changes nothing */
  enum { K = sizeof @weights / sizeof @weights[0] };
  long long at[K];
  unsigned char seen[K] = {0};
  int rc = 0;
  char key[512], field[32], dtype[16];
  const char* p = @ws(h);
  if (*p != '{') rc = @fail(m, "not a safetensors file (its header is not a JSON object): ", path);
  else p = @ws(p + 1);
  if (!rc && *p == '}') ++p;
  else
    while (!rc) {
      if (*p != '"' || !(p = @string(p + 1, key, sizeof key)) || *(p = @ws(p)) != ':') {
        rc = @fail(m, "not a safetensors file (bad JSON in its header): ", path);
        break;
      }
      p = @ws(p + 1);
      int w = -1;
      for (size_t i = 0; i < K; ++i)
        if (strcmp(@weights[i].name, key) == 0) w = (int)i;
      if (w < 0) { /* __metadata__, or a tensor this program does not use */
        if (!(p = @skip(p, 0))) rc = @fail(m, "not a safetensors file (bad JSON in its header): ", path);
      } else {
        long long shape[8], offs[2] = {-1, -1};
        int ndim = -1, noffs = 0;
        dtype[0] = 0;
        if (*p++ != '{') p = NULL;
        while (p && *(p = @ws(p)) == '"') {
          if (!(p = @string(p + 1, field, sizeof field)) || *(p = @ws(p)) != ':') { p = NULL; break; }
          p = @ws(p + 1);
          if (strcmp(field, "dtype") == 0) p = *p == '"' ? @string(p + 1, dtype, sizeof dtype) : NULL;
          else if (strcmp(field, "shape") == 0) p = @ints(p, shape, 8, &ndim);
          else if (strcmp(field, "data_offsets") == 0) p = @ints(p, offs, 2, &noffs);
          else p = @skip(p, 0);
          if (p && *(p = @ws(p)) == ',') ++p;
        }
        if (!p || *p++ != '}' || ndim < 0 || noffs != 2 || offs[1] < offs[0]) {
          rc = @fail(m, "not a safetensors file (a tensor's entry lacks dtype, shape or data_offsets): ", key);
          break;
        }
        const @weight* wt = &@weights[w];
        int same = ndim == wt->ndim;
        for (int d = 0; same && d < ndim && d < 8; ++d) same = shape[d] == wt->shape[d];
        if (strcmp(dtype, wt->dtype) != 0) rc = @fail(m, "another dtype than the program's: ", key);
        else if (!same) rc = @fail(m, "another shape than the program's: ", key);
        else if ((unsigned long long)(offs[1] - offs[0]) != wt->bytes)
          rc = @fail(m, "data_offsets that are not its size: ", key);
        else if ((unsigned long long)offs[0] > (unsigned long long)LONG_MAX - 8 - hlen)
          rc = @fail(m, "a tensor beyond what fseek reaches here (a long offset): ", key);
        at[w] = 8 + (long long)hlen + offs[0];
        seen[w] = 1;
      }
      if (rc) break;
      p = @ws(p);
      if (*p == '}') break;
      if (*p++ != ',') {
        rc = @fail(m, "not a safetensors file (bad JSON in its header): ", path);
        break;
      }
      p = @ws(p);
    }
  for (size_t i = 0; !rc && i < K; ++i)
    if (!seen[i]) rc = @fail(m, "the file has no tensor ", @weights[i].name);
  for (size_t i = 0; !rc && i < K; ++i)
    if (fseek(f, (long)at[i], SEEK_SET) != 0 || fread(m->buf[@weights[i].buf], 1, @weights[i].bytes, f) != @weights[i].bytes) {
      rc = @fail(m, "the file ends inside tensor ", @weights[i].name);
      memset(m->filled, 0, sizeof m->filled); /* some were overwritten: a mix of two files */
    }
  free(h);
  fclose(f);
  if (!rc) memset(m->filled, 1, sizeof m->filled);
  return rc;
}

const char* @error(@* m) { return m->error; }
)C";
  std::string out;
  for (const char* c = kBody; *c; ++c) {
    if (*c != '@') {
      out += *c;
      continue;
    }
    // @name is NAME_name, a bare @ (the handle's type) is NAME
    out += N;
    if (c[1] >= 'a' && c[1] <= 'z') out += '_';
  }
  return out;
}

} // namespace tg
