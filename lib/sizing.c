/* sizing.c: placeholder until the module lands. */
