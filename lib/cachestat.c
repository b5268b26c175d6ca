/* cachestat.c: placeholder until the module lands. */
