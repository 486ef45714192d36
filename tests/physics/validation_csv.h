/* Each physics check writes its figure against its reference as a CSV
 * file, `<check>.csv` in the folder named by EDDY_VALIDATION_OUT
 * (tests/meson.build sets it to build/validation; unset: no file). The file is written under a temporary name and renamed
 * when complete, so a failed or killed run leaves no half-written table.
 * The first lines are comments (`# `) saying what the columns are and where
 * the reference comes from. Check names are fixed strings of the tests. */
#ifndef EDDY_TEST_VALIDATION_CSV_H
#define EDDY_TEST_VALIDATION_CSV_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct validation_csv {
    FILE *f;
    char path[4096], tmp[4096 + 8];
} validation_csv;

/* Opens `<check>.csv` (NULL file when the variable is unset or the folder
 * cannot be written: the check still runs, only its table is missing). */
static inline validation_csv validation_csv_open(const char *check, const char *comment, const char *header)
{
    validation_csv v = { 0 };
    const char *dir = getenv("EDDY_VALIDATION_OUT");
    if (!dir || !*dir)
        return v;
    mkdir(dir, 0777); /* made once; an existing folder is fine */
    snprintf(v.path, sizeof v.path, "%s/%s.csv", dir, check);
    snprintf(v.tmp, sizeof v.tmp, "%s.part", v.path);
    v.f = fopen(v.tmp, "w");
    if (!v.f) {
        fprintf(stderr, "validation: cannot write %s\n", v.tmp);
        return v;
    }
    fprintf(v.f, "# %s\n%s\n", comment, header);
    return v;
}

/* Closes the table and gives it its name. */
static inline void validation_csv_close(validation_csv *v)
{
    if (!v->f)
        return;
    bool ok = fclose(v->f) == 0;
    v->f = NULL;
    if (!ok || rename(v->tmp, v->path) != 0) {
        fprintf(stderr, "validation: cannot finish %s\n", v->path);
        remove(v->tmp);
        return;
    }
    printf("validation table: %s\n", v->path);
}

#endif
