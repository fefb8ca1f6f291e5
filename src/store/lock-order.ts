/**
 * Code-unit order of keys (hex addresses, composite keys): writers that lock rows sort them with it, so
 * that all of them take their locks in one order. Cheaper than localeCompare on the hot write path.
 */
export const inLockOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
