import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { Authenticator } from '../auth/authenticator.js';
import { SCOPE_OF_PREFIX } from '../auth/scopes.js';
import type { TokenIssuer } from '../auth/token-issuer.js';
import { reportsUnavailable } from '../shared/reports-unavailable.js';
import { ApiError } from '../shared/errors.js';
import type { CostBuckets, RateBuckets } from '../shared/token-bucket.js';
import type { AccountService } from '../provisioning/accounts/account-service.js';
import type { PlatformAccountService } from '../provisioning/platform-accounts/platform-account-service.js';
import type { JobLookup } from '../provisioning/job-queue.js';
import type { LabelService } from '../provisioning/labels/label-service.js';
import type { CampaignService } from '../provisioning/campaigns/campaign-service.js';
import type { CampaignCopyService } from '../provisioning/campaigns/campaign-copy-service.js';
import type { MarkupService } from '../provisioning/markups/markup-service.js';
import type { OrganizationService } from '../organizations/organization-service.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { AppEnv } from './context.js';
import { OperationRate } from './operation-rate.js';
import { makeErrorHandler, notFoundHandler, type ErrorLogger } from './error-mapper.js';
import { apiGuard } from './middleware/api-guard.js';
import { compressJson } from './middleware/compress-json.js';
import { decodeRequestBody } from './middleware/decode-body.js';
import { strictQuery } from './middleware/strict-query.js';
import { queryEncoding } from './middleware/query-encoding.js';
import { serverTiming } from './middleware/server-timing.js';
import { requestId } from './middleware/request-id.js';
import { transportGuard } from './middleware/transport-guard.js';
import { registerAccountLinkRoutes } from './routes/account-links.js';
import { registerChangeRoutes } from './routes/changes.js';
import { registerAccountRoutes } from './routes/accounts.js';
import { registerCampaignCopyRoutes } from './routes/campaign-copies.js';
import { registerCampaignRoutes } from './routes/campaigns.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerReportingRoutes } from './routes/reporting.js';
import type { ReportService } from '../reporting/report-service.js';
import type { ReportJobService } from '../report-jobs/report-job-service.js';
import { registerReportJobRoutes } from './routes/report-jobs.js';
import type { ReportViewService } from '../report-views/report-view-service.js';
import { registerReportViewRoutes } from './routes/report-views.js';
import { registerLabelRoutes } from './routes/labels.js';
import { registerMarkupRoutes } from './routes/markups.js';
import { registerPlatformAccountRoutes } from './routes/platform-accounts.js';
import { registerOrganizationRoutes } from './routes/organization.js';
import { registerOAuthMetadataRoute } from './routes/oauth-metadata.js';
import { registerTokenRoute } from './routes/token.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerExplorerRoutes } from './routes/explorer.js';
import { registerMcpRoutes, type McpHandler } from './routes/mcp.js';
import type { ExplorerAssets } from './explorer-assets.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import { validationHook } from './validation.js';
import { errorResponses } from './openapi-errors.js';
import { documentConfig, registerDocumentComponents } from './openapi-document.js';
import { DeclaredOperations } from './declared-operations.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppDeps {
  organizations: OrganizationService;
  accounts: AccountService;
  platformAccounts: PlatformAccountService;
  jobs: JobLookup;
  labels: LabelService;
  campaigns: CampaignService;
  campaignCopies: CampaignCopyService;
  markups: MarkupService;
  reports: ReportService;
  webhooks: WebhookService;
  reportJobs: ReportJobService;
  /** Saved report views (/reporting/v0/views): tenant state, served on every store. */
  reportViews: ReportViewService;
  /** The change feed (/reporting/v0/changes). */
  changes: ChangeFeed;
  /** The browser explorer's built files (GET /explorer). */
  explorer: ExplorerAssets;
  /** The MCP endpoint (POST /mcp); none: /mcp is not served. */
  mcp?: McpHandler | undefined;
  authenticator: Authenticator;
  tokenIssuer: TokenIssuer;
  apiRate: RateBuckets;
  /** Webhook redeliveries per organization (a bucket of their own, after apiRate). */
  redeliveryRate: RateBuckets;
  /** Report query time per organization (the reporting API only); undefined: no cost-based limit. */
  dbTime?: CostBuckets | undefined;
  trustProxy: boolean;
  /** Server-Timing on every answer (ADREPORT_SERVER_TIMING): where the request's time went, per layer. */
  serverTiming?: boolean | undefined;
  /**
   * False on a store without facts (PostgreSQL until issue 38): the reporting API answers 503
   * reports_unavailable, except the change feed, the field list and saved views, which need no facts.
   */
  reportsServed?: boolean | undefined;
  nowMs: () => number;
  logError: ErrorLogger;
  /** Info lines (a client that went away mid-request); none when left out. */
  logInfo?: ((line: string) => void) | undefined;
  version: string;
}

const healthRoute = createRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  description: 'No token needed and no database query: 200 while the process serves requests.',
  tags: ['Health'],
  summary: 'Liveness: the process serves requests',
  security: [],
  responses: {
    200: { description: 'Alive.', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
    ...errorResponses(
      'get',
      {
        400: 'The raw query string holds a character that must be percent-encoded (unencoded_characters), or the query has a parameter (health takes none: unknown_parameter).',
      },
      [500],
    ),
  },
});

/** Method and path of every endpoint the app serves (not middleware), e.g. for checking the OpenAPI document. */
export function servedRoutes(app: OpenAPIHono<AppEnv>): Array<{ method: string; path: string }> {
  const seen = new Map<string, { method: string; path: string }>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    seen.set(`${route.method} ${route.path}`, { method: route.method, path: route.path });
  }
  return [...seen.values()];
}

/** A known path asked with a method it does not serve gets 405 and Allow, not a bare 404. */
function refuseOtherMethods(app: OpenAPIHono<AppEnv>): void {
  const allowed = new Map<string, Set<string>>();
  for (const route of servedRoutes(app))
    allowed.set(route.path, (allowed.get(route.path) ?? new Set()).add(route.method));
  for (const [path, methods] of allowed) {
    const allow = [...methods].sort().join(', ');
    app.all(path, () => {
      throw new ApiError(405, 'method_not_allowed', `${path} accepts ${allow}.`, [], { Allow: allow });
    });
  }
}

/** The whole HTTP surface; a pure composition of middleware and route modules. */
export function buildApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(makeErrorHandler(deps.logError, deps.logInfo));
  app.notFound(notFoundHandler);

  if (deps.serverTiming) app.use('*', serverTiming());
  app.use('*', requestId());
  app.use('*', transportGuard(deps.trustProxy));
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('Strict-Transport-Security', 'max-age=31536000');
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use('*', compressJson());
  app.use('*', queryEncoding());
  for (const [prefix, scope] of Object.entries(SCOPE_OF_PREFIX)) {
    const dbTime = scope === 'reporting' ? deps.dbTime : undefined;
    app.use(`${prefix}/*`, apiGuard(scope, deps.authenticator, deps.apiRate, deps.nowMs, dbTime));
  }
  // What each operation declares, read from the route declarations once they are all registered (below).
  const operations = new DeclaredOperations();
  app.use('*', strictQuery(operations));

  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`);
    },
  });
  // GET and HEAD carry no body we read. Looking for one made @hono/node-server build a full fetch
  // Request per request (AbortControllers, a header copy, a FinalizationRegistry entry whose
  // clean-ups later ran in bursts of tens of ms on the event loop).
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  app.use('*', decodeRequestBody(operations, MAX_BODY_BYTES));
  registerTokenRoute(app, deps.tokenIssuer);
  registerOAuthMetadataRoute(app);
  registerOrganizationRoutes(app, deps.organizations);
  registerAccountRoutes(app, deps.accounts);
  registerAccountLinkRoutes(app, deps.platformAccounts);
  registerLabelRoutes(app, deps.labels);
  registerPlatformAccountRoutes(app, deps.platformAccounts);
  registerJobRoutes(app, deps.jobs);
  registerCampaignRoutes(app, deps.campaigns);
  registerCampaignCopyRoutes(app, deps.campaignCopies);
  registerMarkupRoutes(app, deps.markups);
  registerReportingRoutes(app, deps.reportsServed === false ? refusing(deps.reports) : deps.reports);
  registerWebhookRoutes(
    app,
    deps.webhooks,
    new OperationRate('redeliveries', deps.redeliveryRate, deps.nowMs, 'redeliveries'),
  );
  registerReportJobRoutes(app, deps.reportsServed === false ? refusing(deps.reportJobs) : deps.reportJobs);
  registerReportViewRoutes(app, deps.reportViews);
  registerChangeRoutes(app, deps.changes);
  app.openapi(healthRoute, (c) => c.json({ status: 'ok' as const }, 200));
  registerExplorerRoutes(app, deps.explorer);
  // Each MCP message takes one request from the client's bucket; the REST calls its tools make take their own.
  if (deps.mcp) registerMcpRoutes(app, deps.mcp, apiGuard('reporting', deps.authenticator, deps.apiRate, deps.nowMs));
  refuseOtherMethods(app);
  operations.load(app.openAPIRegistry);

  registerDocumentComponents(app.openAPIRegistry);
  app.doc31('/openapi.json', documentConfig(deps.version));
  return app;
}

/**
 * A service whose every method answers 503 reports_unavailable: the routes still validate their
 * requests (a malformed one is a 400, a wrong method a 405) before asking it for anything.
 */
function refusing<T extends object>(service: T): T {
  return new Proxy(service, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return () => {
        throw reportsUnavailable();
      };
    },
  });
}
