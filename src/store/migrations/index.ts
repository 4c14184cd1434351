import { m001Tenancy } from './001-tenancy.js';
import { m002Accounts } from './002-accounts.js';
import { m003PlatformsJobs } from './003-platforms-jobs.js';
import { m004Campaigns } from './004-campaigns.js';
import { m005SandboxCampaigns } from './005-sandbox-campaigns.js';
import { m006CampaignCopies } from './006-campaign-copies.js';
import { m007Statistics } from './007-statistics.js';
import { m008TokenKeysOut } from './008-token-keys-out.js';
import { m009FxPublished } from './009-fx-published.js';
import { m010Rollups } from './010-rollups.js';
import { m011FactPartitionVersions } from './011-fact-partition-versions.js';
import { m012ConversionLag } from './012-conversion-lag.js';
import { m013Events } from './013-events.js';
import { m014ReportJobs } from './014-report-jobs.js';
import { m015Webhooks } from './015-webhooks.js';
import { m016Changes } from './016-changes.js';
import { m017ReportJobEstimates } from './017-report-job-estimates.js';
import { m018WorkLeases } from './018-work-leases.js';
import { m019Breakdowns } from './019-breakdowns.js';
import { m020SearchTerms } from './020-search-terms.js';
import { m021ScramVerifiers } from './021-scram-verifiers.js';
import { m022ReportViews } from './022-report-views.js';
import type { Migration } from './migration.js';

export type { Migration, MigrationContext } from './migration.js';

/** Append only: a released migration is never edited, a change is a new version. */
export const MIGRATIONS: readonly Migration[] = [
  m001Tenancy,
  m002Accounts,
  m003PlatformsJobs,
  m004Campaigns,
  m005SandboxCampaigns,
  m006CampaignCopies,
  m007Statistics,
  m008TokenKeysOut,
  m009FxPublished,
  m010Rollups,
  m011FactPartitionVersions,
  m012ConversionLag,
  m013Events,
  m014ReportJobs,
  m015Webhooks,
  m016Changes,
  m017ReportJobEstimates,
  m018WorkLeases,
  m019Breakdowns,
  m020SearchTerms,
  m021ScramVerifiers,
  m022ReportViews,
];
