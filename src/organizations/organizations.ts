import type { Executor } from '../store/database.js';

export interface Organization {
  readonly id: number;
  readonly name: string;
}

export const ORGANIZATION_NAME_MAX = 200;

export async function createOrganization(tx: Executor, name: string): Promise<Organization> {
  const row = await tx.one<{ id: number; name: string }>(
    'INSERT INTO organizations (name) VALUES ($1) RETURNING id, name',
    [name],
  );
  return { id: row!.id, name: row!.name };
}

export async function getOrganization(db: Executor, id: number): Promise<Organization | undefined> {
  return db.one<{ id: number; name: string }>('SELECT id, name FROM organizations WHERE id = $1', [id]);
}

export async function renameOrganization(tx: Executor, id: number, name: string): Promise<Organization | undefined> {
  return tx.one<{ id: number; name: string }>('UPDATE organizations SET name = $2 WHERE id = $1 RETURNING id, name', [
    id,
    name,
  ]);
}

export async function countOrganizations(db: Executor): Promise<number> {
  const row = await db.one<{ n: number }>('SELECT count(*) AS n FROM organizations');
  return row?.n ?? 0;
}
