/* reader.c: placeholder until the module lands. */
