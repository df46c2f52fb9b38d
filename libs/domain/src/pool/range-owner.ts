/** A StatefulSet's range in a pool is keyed by `namespace/name`. */
export const rangeOwner = (namespace: string, name: string) => `${namespace}/${name}`;
