import type { AdPlatformType, PlatformConnector, PlatformDirectory } from '../connector.js';
import type { Database } from '../../store/database.js';
import type { SandboxFaultConfig, SandboxFaults } from './fault-config.js';
import { FaultInjector } from './fault-injector.js';
import { SandboxConnector } from './sandbox-connector.js';

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
    private readonly db: Database,
    private readonly options: SandboxOptions,
  ) {
    this.faults = new FaultInjector(options.faults);
  }

  connector(organizationId: number, platform: AdPlatformType): PlatformConnector {
    if (!Number.isSafeInteger(organizationId) || organizationId < 1) throw new RangeError(`not an organization id: ${organizationId}`);
    const key = `${organizationId}|${platform}`;
    let connector = this.connectors.get(key);
    if (!connector) {
      connector = new SandboxConnector({ db: this.db, now: this.options.now, faults: this.faults }, organizationId, platform);
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
