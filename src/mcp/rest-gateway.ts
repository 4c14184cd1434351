/**
 * The MCP tools are clients of the REST API, run in the same process: every tool call is one or
 * more requests through the service's own Hono app, with the caller's bearer token, so they pass
 * the same authentication, scopes, rate limits, validation and organization scoping as a request
 * over the network, and their answers are the REST answers byte for byte.
 */

/** The app's fetch: a request in, its response out (no socket). */
export type AppFetch = (request: Request) => Promise<Response>;

/** One REST answer as the tools read it. */
export interface RestAnswer {
  /** The URL a person would call for the same answer (the public origin, path and query). */
  readonly url: string;
  readonly method: string;
  readonly status: number;
  readonly headers: Headers;
  /** The JSON body; undefined when there is none (204, 304). */
  readonly body: unknown;
  /** The body's JSON text as the API sent it ('' without a JSON body): a tool's text answer reuses it. */
  readonly json: string;
}

/** What the MCP request carried that a REST request of the same caller needs. */
const FORWARDED_HEADERS = ['authorization', 'x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-host'] as const;

/** A query's text as the service reads it: a space as %20 (URLSearchParams writes "+", which a pasted URL may not keep). */
export function queryText(query: URLSearchParams): string {
  return query.toString().replaceAll('+', '%20');
}

export class RestGateway {
  private readonly forwarded: Headers;

  /**
   * @param origin the https origin the MCP request reached (what a person would use too)
   * @param from the MCP request, whose bearer token (and proxy headers) every REST call carries
   */
  constructor(
    private readonly appFetch: AppFetch,
    readonly origin: string,
    from: Headers,
  ) {
    this.forwarded = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = from.get(name);
      if (value !== null) this.forwarded.set(name, value);
    }
  }

  /** The public URL of a path and query. */
  urlOf(path: string, query?: URLSearchParams): string {
    const text = query === undefined ? '' : queryText(query);
    return `${this.origin}${path}${text === '' ? '' : `?${text}`}`;
  }

  get(path: string, query?: URLSearchParams): Promise<RestAnswer> {
    return this.send('GET', this.urlOf(path, query));
  }

  post(path: string, body: unknown): Promise<RestAnswer> {
    return this.send('POST', this.urlOf(path), body);
  }

  delete(path: string): Promise<RestAnswer> {
    return this.send('DELETE', this.urlOf(path));
  }

  private async send(method: string, url: string, body?: unknown): Promise<RestAnswer> {
    const headers = new Headers(this.forwarded);
    headers.set('accept', 'application/json');
    // Uncompressed: the tool reads the JSON, and nothing crosses a network here.
    headers.set('accept-encoding', 'identity');
    if (body !== undefined) headers.set('content-type', 'application/json');
    const response = await this.appFetch(
      new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
    return {
      url,
      method,
      status: response.status,
      headers: response.headers,
      body: text !== '' && isJson ? (JSON.parse(text) as unknown) : undefined,
      json: isJson ? text : '',
    };
  }
}
