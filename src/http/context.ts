import type { HttpBindings } from '@hono/node-server';
import type { AuthContext } from '../auth/authenticator.js';

/** What every request carries through the Hono app. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    requestId: string;
    auth: AuthContext;
    /** The answer carries a strong ETag of its bytes: compressJson leaves it as it is. */
    identityOnly?: true;
  };
}
