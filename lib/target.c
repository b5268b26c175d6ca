/* target.c: placeholder until the module lands. */
