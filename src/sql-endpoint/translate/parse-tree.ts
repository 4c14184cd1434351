/**
 * A node of libpg-query's JSON parse tree: `{ Kind: { ...fields } }`, or the fields themselves.
 * The tree mirrors PostgreSQL's C structs (hundreds of node kinds); the walkers here read it field
 * by field and refuse every kind they do not name, so a typed copy of the whole grammar would
 * add nothing they check.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: checked by allow-list, field by field
export type ParseNode = Record<string, any>;
