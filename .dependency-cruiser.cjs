/**
 * DESIGN D4's import directions as rules (issue 20 item 5), checked by `npm run deps` over src/
 * and by `npm test`. A rule's name says what it keeps; its comment says what it forbids.
 * Composition roots: src/main.ts (the service) and src/cli/ (the bin's commands, which build
 * services of their own) may import any layer; nothing else imports them.
 * There is no baseline of known breaks: any break fails.
 */
const LAYERS =
  'auth|catalog|changes|clickhouse|cli|client|config|demo|events|explorer|generator|http|jobs|mcp|organizations|planner|platforms|provisioning|reference|report-jobs|report-views|reporting|runtime|shared|sql|sql-endpoint|statistics|store|webhooks';
const above = (...names) => `^src/(${names.join('|')})(/|\\.ts$)`;
/** Node modules that do I/O, and the packages that open files, sockets or threads. */
const IO_MODULES =
  '^(node:)?(fs|fs/promises|net|http|http2|https|tls|dgram|dns|child_process|worker_threads|cluster|readline|os)$|^(@duckdb|@clickhouse|chdb|piscina|selfsigned|@hono/node-server)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles: a cycle is one module in several files, with an initialization order nobody chose.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'nothing-imports-http',
      severity: 'error',
      comment: 'D4: nothing imports http; only the composition root (src/main.ts) mounts the app.',
      from: { path: '^src/', pathNot: ['^src/http/', '^src/main\\.ts$'] },
      to: { path: '^src/http/' },
    },
    {
      name: 'nothing-imports-jobs',
      severity: 'error',
      comment:
        'D4: nothing imports jobs but the composition roots (main.ts, cli/). Services that queue work use provisioning/job-queue.ts, which jobs implements.',
      from: { path: '^src/', pathNot: ['^src/jobs/', '^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/jobs/' },
    },
    {
      name: 'nothing-imports-clickhouse',
      severity: 'error',
      comment:
        'Issue 22: the ClickHouse replica and engine are wired by the composition roots (main.ts, cli/) only; reporting sees the ReportEngine interface.',
      from: { path: '^src/', pathNot: ['^src/clickhouse/', '^src/main\\.ts$', '^src/engines\\.ts$', '^src/cli/'] },
      to: { path: '^src/clickhouse/' },
    },
    {
      name: 'nothing-imports-main',
      severity: 'error',
      comment: "D4: nothing imports main.ts but the CLI's serve command, the other half of the composition root.",
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/main\\.ts$' },
    },
    {
      name: 'nothing-imports-sql-endpoint',
      severity: 'error',
      comment:
        'Issue 41: the SQL endpoint is started by the composition roots only (main.ts; the CLI names its start error).',
      from: { path: '^src/', pathNot: ['^src/sql-endpoint/', '^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/sql-endpoint/' },
    },
    {
      name: 'nothing-imports-mcp',
      severity: 'error',
      comment:
        'Issue 42: the MCP endpoint is built by the composition root (main.ts) and handed to the app as an interface.',
      from: { path: '^src/', pathNot: ['^src/mcp/', '^src/main\\.ts$'] },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'mcp-is-a-rest-client',
      severity: 'error',
      comment:
        'Issue 42: the MCP tools answer through the REST API (the app they are handed), never beside it: they read the catalogue and the reporting parameters vocabulary, nothing that queries or writes (store, services, engines, http).',
      from: { path: '^src/mcp/' },
      to: {
        path: '^src/',
        pathNot: ['^src/mcp/', '^src/catalog/', '^src/shared/', '^src/reporting/report-request\\.ts$'],
      },
    },
    {
      name: 'sql-endpoint-translation-is-pure',
      severity: 'error',
      comment:
        'Issue 41: the model and the translation of statements onto it do no I/O (a pure function from a parse tree to SQL).',
      from: { path: '^src/sql-endpoint/(model|translate)/' },
      to: { path: IO_MODULES },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'The commands are reached through the bin (src/cli.cts) only.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/cli\\.cts$'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'planner-is-pure',
      severity: 'error',
      comment:
        'D4: the planner imports only catalog and shared (never store, platforms, http, reporting, sql, or anything with I/O).',
      from: { path: '^src/planner/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('planner', 'catalog', 'shared') },
    },
    {
      name: 'sql-is-pure',
      severity: 'error',
      comment:
        'D4: sql imports only planner, catalog and shared (never store, platforms, http, reporting, or anything with I/O).',
      from: { path: '^src/sql/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('sql', 'planner', 'catalog', 'shared') },
    },
    {
      name: 'sql-reads-plan-types-only',
      severity: 'error',
      comment:
        "D4: sql -> planner types: the compiler reads a plan (planner/*-plan.ts, *-types.ts), it never runs the planner's logic.",
      from: { path: '^src/sql/' },
      to: { path: '^src/planner/', pathNot: '-(plan|types)\\.ts$' },
    },
    {
      name: 'catalog-imports-only-shared',
      severity: 'error',
      comment: 'D4: the semantic model sits below planner, sql and reporting; it imports only shared.',
      from: { path: '^src/catalog/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('catalog', 'shared') },
    },
    {
      name: 'shared-imports-nothing',
      severity: 'error',
      comment: 'D4: shared holds pure helpers at the bottom; it imports no other folder of src.',
      from: { path: '^src/shared/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('shared') },
    },
    {
      name: 'config-imports-only-shared',
      severity: 'error',
      comment: 'D4: config is the zod schema read at start; it knows no service.',
      from: { path: '^src/config/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('config', 'shared') },
    },
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment:
        'D4, STYLE: planner, sql, catalog and shared import no I/O (files, sockets, processes, threads, DuckDB).',
      from: { path: '^src/(planner|sql|catalog|shared)/' },
      to: { path: IO_MODULES },
    },
    {
      name: 'duckdb-only-in-store',
      severity: 'error',
      comment: 'D1: the store owns the one DuckDB instance; everyone else gets Database/Executor from it.',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '^@duckdb/' },
    },
    {
      name: 'jsep-only-in-expression',
      severity: 'error',
      comment: 'D4: planner/expression is the only module importing jsep.',
      from: { path: '^src/', pathNot: '^src/planner/expression/' },
      to: { path: '^jsep' },
    },
    {
      name: 'store-below-services',
      severity: 'error',
      comment:
        'D4: the store is below every service: it imports only shared, sql/sql-value.ts (the values it binds) and runtime/request-timing.ts (Server-Timing of its waits and statements).',
      from: { path: '^src/store/', pathNot: '^src/store/migrations/' },
      to: {
        path: `^src/(${LAYERS})(/|\\.ts$)`,
        pathNot: [above('store', 'shared'), '^src/sql/sql-value\\.ts$', '^src/runtime/request-timing\\.ts$'],
      },
    },
    {
      name: 'store-migrations-below-services',
      severity: 'error',
      comment:
        'As store-below-services, and auth: migration 008 moved the token keys into the key file whose format auth owns.',
      from: { path: '^src/store/migrations/' },
      to: {
        path: `^src/(${LAYERS})(/|\\.ts$)`,
        pathNot: [above('store', 'shared', 'auth'), '^src/sql/sql-value\\.ts$'],
      },
    },
    {
      name: 'reporting-below-http',
      severity: 'error',
      comment:
        'D4: reporting -> planner, sql, store, catalog (and shared, reference); never http, provisioning, jobs, platforms, auth or the CLI.',
      from: { path: '^src/reporting/' },
      to: {
        path: above(
          'http',
          'provisioning',
          'jobs',
          'platforms',
          'auth',
          'cli',
          'main',
          'generator',
          'demo',
          'statistics',
          'organizations',
        ),
      },
    },
    {
      name: 'provisioning-below-http-and-jobs',
      severity: 'error',
      comment:
        'D4: provisioning is services over store and platforms; it never imports http, reporting or the CLI (nor jobs: nothing-imports-jobs).',
      from: { path: '^src/provisioning/' },
      to: { path: above('http', 'reporting', 'cli', 'main', 'generator', 'demo', 'statistics') },
    },
    {
      name: 'platforms-below-provisioning',
      severity: 'error',
      comment:
        'D4: platforms are connectors (interface + sandbox) over store and shared; they know no service above them.',
      from: { path: '^src/platforms/' },
      to: {
        path: above(
          'provisioning',
          'jobs',
          'http',
          'reporting',
          'planner',
          'sql',
          'catalog',
          'auth',
          'cli',
          'main',
          'generator',
          'demo',
          'statistics',
          'organizations',
        ),
      },
    },
    {
      name: 'auth-below-http',
      severity: 'error',
      comment:
        'D4: auth (clients, secrets, tokens, scopes) sits on store, config and shared; http uses it, not the reverse.',
      from: { path: '^src/auth/' },
      to: {
        path: above(
          'http',
          'jobs',
          'provisioning',
          'reporting',
          'platforms',
          'planner',
          'sql',
          'catalog',
          'cli',
          'main',
          'generator',
          'demo',
          'statistics',
        ),
      },
    },
    {
      name: 'http-through-services',
      severity: 'error',
      comment:
        'D4: http -> reporting, provisioning, auth (plus shared, config, reference, organizations, and catalog, whose fields the reporting routes document); never store, platforms, planner or sql directly (nor jobs: nothing-imports-jobs): those come through a service or the composition root.',
      from: { path: '^src/http/' },
      to: {
        path: above('store', 'platforms', 'planner', 'sql', 'statistics', 'generator', 'demo', 'cli', 'main'),
        // The TLS pair beside the database is a secret file like the key files: one set of rules (issue 36 item 8).
        pathNot: '^src/store/secret-files\\.ts$',
      },
    },
    {
      name: 'generator-no-ui',
      severity: 'error',
      comment: "The generator writes data; showing progress is the CLI's job (it passes a progress callback in).",
      from: { path: '^src/generator/' },
      to: { path: above('cli', 'http', 'main') },
    },
    {
      name: 'cli-uses-generator-entry',
      severity: 'error',
      comment: 'The CLI calls the generator through its entry points (generate, options, store), not its internals.',
      from: { path: '^src/cli/' },
      to: { path: '^src/generator/', pathNot: '^src/generator/(generate|options|store)\\.ts$' },
    },
    {
      name: 'changes-below-services',
      severity: 'error',
      comment:
        'Issue 24: every write of report data records a change row in its own transaction, so the change feed sits on store and shared only; the services call it, never the reverse.',
      from: { path: '^src/changes/' },
      to: { path: `^src/(${LAYERS})(/|\\.ts$)`, pathNot: above('changes', 'store', 'shared') },
    },
    {
      name: 'events-below-services',
      severity: 'error',
      comment:
        "Issue 24: the event log is written in the callers' transactions: it sits on store and shared (and the JSON type of the job queue interface).",
      from: { path: '^src/events/' },
      to: {
        path: `^src/(${LAYERS})(/|\\.ts$)`,
        pathNot: [above('events', 'store', 'shared'), '^src/provisioning/job-queue\\.ts$'],
      },
    },
    {
      name: 'webhooks-on-events',
      severity: 'error',
      comment:
        'Issue 24: webhooks deliver the event log; they know events, store, config and shared, no service that emits events (runtime: the polling loop every durable queue shares, issue 37).',
      from: { path: '^src/webhooks/' },
      to: {
        path: `^src/(${LAYERS})(/|\\.ts$)`,
        pathNot: above('webhooks', 'events', 'store', 'config', 'shared', 'runtime'),
      },
    },
    {
      name: 'report-jobs-below-http',
      severity: 'error',
      comment:
        'Issue 24: report jobs run reports through the reporting service and write files through store; http serves them, not the reverse.',
      from: { path: '^src/report-jobs/' },
      to: { path: above('http', 'cli', 'main', 'webhooks', 'platforms', 'statistics', 'generator', 'demo') },
    },
    {
      name: 'report-views-below-http',
      severity: 'error',
      comment:
        "Issue 43: saved views are tenant state checked by the reporting GET's parser and the planner (no data read); http serves them, not the reverse.",
      from: { path: '^src/report-views/' },
      to: {
        path: above(
          'http',
          'cli',
          'main',
          'webhooks',
          'platforms',
          'statistics',
          'generator',
          'demo',
          'jobs',
          'sql',
          'report-jobs',
        ),
      },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment:
        'Issue 25: src/client is the published `adreport/client` and runs in browsers: it imports only itself and openapi-fetch (no other layer, no Node module), so the package export carries nothing of the server.',
      from: { path: '^src/client/' },
      to: { pathNot: ['^src/client/', '^node_modules/openapi-fetch/'] },
    },
    {
      name: 'explorer-is-a-browser-app',
      severity: 'error',
      comment:
        'Issue 25: src/explorer is bundled for browsers by esbuild; it talks to the service through the client only (HTTP), draws with uplot, and imports no server layer and no Node module.',
      from: { path: '^src/explorer/' },
      to: { pathNot: ['^src/explorer/', '^src/client/', '^node_modules/uplot/'] },
    },
    {
      name: 'nothing-imports-explorer',
      severity: 'error',
      comment: 'The explorer is a page the service serves as built files (dist/explorer), never code it runs.',
      from: { path: '^src/', pathNot: '^src/explorer/' },
      to: { path: '^src/explorer/' },
    },
    {
      name: 'server-does-not-import-client',
      severity: 'error',
      comment:
        'The client calls the service over HTTP; the service never imports it (the explorer, a browser app, does).',
      from: { path: '^src/', pathNot: ['^src/client/', '^src/explorer/'] },
      to: { path: '^src/client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` counts: a type is a dependency of the design even when erased at run time.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
