/* copy.c: placeholder until the module lands. */
