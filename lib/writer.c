/* writer.c: placeholder until the module lands. */
