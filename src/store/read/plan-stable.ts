/** The statements whose best plan is the same whatever their parameters' values, each with a name of its own. */
const planStable = new Map<string, string>();

/**
 * Marks a statement as plan-stable: one whose best plan does not depend on its parameters' values (a
 * lookup of a set of keys through their primary keys, a statement without parameters), so that a
 * reader may prepare it once per connection and let PostgreSQL keep one generic plan. A statement
 * keyed by an address or a token is not: one generic plan for a busy key and a quiet one was a hundred
 * times slower than a plan for the key at hand (an NFT's transfers at full scale: 141 ms against 1.4
 * ms). Called with the statement's constant text, once.
 */
export function planStableStatement(text: string): string {
  if (!planStable.has(text)) planStable.set(text, `sextant_${planStable.size}`);
  return text;
}

/** The name a plan-stable statement is prepared under; undefined for any other. */
export const planStableName = (text: string): string | undefined => planStable.get(text);
