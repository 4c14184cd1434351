import { expect } from 'vitest';
import { PlatformError } from '../../src/platforms/connector.js';

/** The PlatformError a connector call rejects with; fails the test if it resolves or throws anything else. */
export async function caught(call: Promise<unknown>): Promise<PlatformError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}
