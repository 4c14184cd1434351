import type { EntityStatus, PlatformAd, PlatformAdGroup, PlatformCampaign, PlatformKeyword } from '../connector.js';
import type { StoredChange } from './sandbox-store.js';

/**
 * Pushed changes laid over the generated catalog: the generated entity is what the platform
 * started with, the stored changes are what users did to it since, the last one per field wins.
 */
export class Overlay {
  private readonly edits = new Map<string, { status?: EntityStatus; name?: string }>();

  constructor(changes: readonly StoredChange[]) {
    for (const change of changes) {
      const key = `${change.entity}|${change.adPlatformId}`;
      const edit = this.edits.get(key) ?? {};
      if (change.field === 'status') edit.status = change.value as EntityStatus;
      else edit.name = change.value;
      this.edits.set(key, edit);
    }
  }

  campaign(campaign: PlatformCampaign): PlatformCampaign {
    return this.apply('CAMPAIGN', campaign);
  }

  adGroup(group: PlatformAdGroup): PlatformAdGroup {
    if (this.edits.size === 0) return group;
    return {
      ...this.apply('AD_GROUP', group),
      keywords: group.keywords.map((keyword) => this.keyword(keyword)),
      ads: group.ads.map((ad) => this.apply('AD', ad)),
    };
  }

  private keyword(keyword: PlatformKeyword): PlatformKeyword {
    const status = this.edits.get(`KEYWORD|${keyword.adPlatformId}`)?.status;
    return status ? { ...keyword, status } : keyword;
  }

  private apply<T extends PlatformCampaign | PlatformAdGroup | PlatformAd>(entity: string, item: T): T {
    const edit = this.edits.get(`${entity}|${item.adPlatformId}`);
    if (!edit) return item;
    return {
      ...item,
      ...(edit.status ? { status: edit.status } : {}),
      ...(edit.name !== undefined ? { name: edit.name } : {}),
    };
  }
}
