import { AdreportError, createAdreportClient, type AdreportClient } from '../client/index.js';
import { byId } from './dom.js';

export interface Session {
  readonly client: AdreportClient;
  readonly clientId: string;
}

/**
 * The sign-in form: a client of the service with the id and secret typed in, checked by asking
 * for a token. The secret lives on in that client object only (it renews the token before expiry);
 * nothing is written to storage.
 */
export function setUpSignIn(onSignedIn: (session: Session) => Promise<void>): { show(): void } {
  const form = byId('sign-in-form', HTMLFormElement);
  const clientIdInput = byId('client-id', HTMLInputElement);
  const secretInput = byId('client-secret', HTMLInputElement);
  const error = byId('sign-in-error', HTMLParagraphElement);
  const submit = form.querySelector('button[type="submit"]') as HTMLButtonElement;

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const clientId = clientIdInput.value.trim();
    const clientSecret = secretInput.value;
    const missing = clientId === '' ? clientIdInput : clientSecret === '' ? secretInput : undefined;
    if (missing) {
      showError(`Enter the ${missing === clientIdInput ? 'client id' : 'client secret'}.`, missing);
      return;
    }
    submit.disabled = true;
    error.textContent = '';
    const client = createAdreportClient({
      baseUrl: location.origin,
      clientId,
      clientSecret,
      // No cookies, and no browser login prompt on a 401 with WWW-Authenticate: Basic (Fetch: only
      // requests that include credentials prompt): the form shows the service's answer instead.
      fetch: (request) => fetch(request, { credentials: 'omit' }),
    });
    client
      .token()
      .then(async () => {
        secretInput.value = '';
        clientIdInput.removeAttribute('aria-invalid');
        secretInput.removeAttribute('aria-invalid');
        await onSignedIn({ client, clientId });
      })
      .catch((failure: unknown) => showError(signInMessage(failure), secretInput))
      .finally(() => {
        submit.disabled = false;
      });
  });

  function showError(message: string, field: HTMLInputElement): void {
    error.textContent = message;
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }

  return {
    show() {
      byId('sign-in', HTMLElement).hidden = false;
      clientIdInput.focus();
    },
  };
}

function signInMessage(failure: unknown): string {
  if (failure instanceof AdreportError) {
    if (failure.code === 'invalid_client') return 'The client id or secret is wrong.';
    return `${failure.message} (${failure.code}, HTTP ${failure.status})`;
  }
  return `The service could not be reached: ${failure instanceof Error ? failure.message : String(failure)}`;
}
