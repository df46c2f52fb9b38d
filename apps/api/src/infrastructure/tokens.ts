/** Nest injection tokens for the plain objects the app shares. */
export const CONFIG = Symbol('CONFIG');
export const PG_POOL = Symbol('PG_POOL');
