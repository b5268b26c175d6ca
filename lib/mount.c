/* mount.c: placeholder until the module lands. */
