/**
 * The feed's cursor: which organization it was issued to, the last change id it has listed, and
 * when it was issued. Opaque to clients (base64url), but nothing secret: every query is scoped to
 * the caller's organization anyway, and a cursor of another organization is refused. Pure.
 */
export interface ChangeCursor {
  readonly organizationId: number;
  /** The last change id listed (0: none yet). */
  readonly lastId: number;
  /** When the cursor was issued (ms since the epoch, the service clock). */
  readonly issuedAtMs: number;
}

/** A cursor is valid for this long after the response that issued it (the feed keeps rows as long). */
export const CURSOR_VALID_MS = 7 * 24 * 3600_000;

const VERSION = 'c1';
const SHAPE = /^c1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

export function encodeCursor(cursor: ChangeCursor): string {
  return Buffer.from(`${VERSION}.${cursor.organizationId}.${cursor.lastId}.${cursor.issuedAtMs}`, 'utf8').toString(
    'base64url',
  );
}

/** The cursor `text` holds, or undefined when it is not one this service issued. */
export function decodeCursor(text: string): ChangeCursor | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const match = SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const [organizationId, lastId, issuedAtMs] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  // Base64url has several spellings of some byte strings; only the canonical one is ours.
  const cursor = { organizationId, lastId, issuedAtMs };
  return encodeCursor(cursor) === text ? cursor : undefined;
}
