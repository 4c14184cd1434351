import type { AdPlatformType, PlatformConnector, PlatformDirectory } from '../connector.js';
import type { Store } from '../../store/store.js';
import type { SandboxFaultConfig, SandboxFaults } from './fault-config.js';
import { FaultInjector } from './fault-injector.js';
import { SandboxConnector } from './sandbox-connector.js';
import type { ReachSelection } from './statistics.js';

export interface SandboxOptions {
  /** The platforms' clock: decides which campaigns exist yet and how complete conversions are. */
  readonly now: () => Date;
  /** Faults for every organization from the start (ADREPORT_SANDBOX_FAULTS). */
  readonly faults?: SandboxFaultConfig;
}

/**
 * The embedded default PlatformDirectory: a deterministic simulation of GOOGLE_ADS,
 * MICROSOFT_ADVERTISING and FACEBOOK, seeded per organization, with switchable faults.
 */
export class SandboxPlatforms implements PlatformDirectory {
  private readonly faults: FaultInjector;
  private readonly connectors = new Map<string, SandboxConnector>();

  constructor(
    private readonly db: Store,
    private readonly options: SandboxOptions,
  ) {
    this.faults = new FaultInjector(options.faults);
  }

  connector(organizationId: number, platform: AdPlatformType): PlatformConnector {
    return this.sandboxConnector(organizationId, platform);
  }

  /**
   * Test oracle for the reach endpoints: the exact number of distinct people the selected ads of
   * a FACEBOOK account reached on the complete days of [from, to] (inclusive, any length). An ad
   * is selected when its id, its ad group's or its campaign's id is listed; an empty selection
   * selects every ad of the account. Counted person by person from the audience model, not from
   * the runs fetchDailyReport returns. NOT_FOUND for an account the organization cannot see;
   * faults do not apply.
   */
  trueReach(
    organizationId: number,
    adPlatformAccountId: string,
    selection: ReachSelection,
    from: string,
    to: string,
  ): Promise<number> {
    return this.sandboxConnector(organizationId, 'FACEBOOK').trueReach(adPlatformAccountId, selection, from, to);
  }

  /** The size U of a FACEBOOK account's audience: every audience run lies in [0, U). */
  audienceSize(organizationId: number, adPlatformAccountId: string): Promise<number> {
    return this.sandboxConnector(organizationId, 'FACEBOOK').audienceSize(adPlatformAccountId);
  }

  private sandboxConnector(organizationId: number, platform: AdPlatformType): SandboxConnector {
    if (!Number.isSafeInteger(organizationId) || organizationId < 1)
      throw new RangeError(`not an organization id: ${organizationId}`);
    const key = `${organizationId}|${platform}`;
    let connector = this.connectors.get(key);
    if (!connector) {
      connector = new SandboxConnector(
        { db: this.db, now: this.options.now, faults: this.faults },
        organizationId,
        platform,
      );
      this.connectors.set(key, connector);
    }
    return connector;
  }

  /** Faults for one organization, or for all ('*'); replaces what that scope had before. */
  setFaults(organizationId: number | '*', platform: AdPlatformType, faults: SandboxFaults): void {
    this.faults.set(organizationId, platform, faults);
  }

  /** Every fault off, including those given at construction. */
  clearFaults(): void {
    this.faults.clear();
  }
}
