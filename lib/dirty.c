/* dirty.c: placeholder until the module lands. */
