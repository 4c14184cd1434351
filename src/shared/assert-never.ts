/**
 * The end of every switch over a closed union: a member added to the union without a case here
 * fails to compile (its value is not `never`), and a value from outside the types fails loudly.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
