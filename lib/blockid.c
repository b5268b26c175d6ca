/* blockid.c: placeholder until the module lands. */
