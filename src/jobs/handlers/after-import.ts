import type { ImportedCampaign } from '../../provisioning/campaigns/campaign-store.js';
import type { Executor } from '../../store/database.js';

/** Follow-up work of an import, run in the import's transaction. */
export type AfterImport = (tx: Executor, organizationId: number, campaign: ImportedCampaign) => Promise<void>;
