/* plan.c: placeholder until the module lands. */
