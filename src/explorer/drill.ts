import type { ReportEndpoint } from './report-fields.js';
import type { DrillStep, ReportState } from './report-state.js';

/**
 * Drill-down: a row of accounts, campaigns or ad groups opens the next level filtered to it
 * (accounts -> campaigns -> ad groups -> keywords or ads), and the breadcrumb leads back up. Pure:
 * states in, states out; the field names come from the next level's `filterable` list.
 */
const NEXT: Readonly<Record<string, ReadonlyArray<{ endpoint: string; field: string; label: string }>>> = {
  accounts: [{ endpoint: 'campaigns', field: 'accountId', label: 'campaigns' }],
  campaigns: [{ endpoint: 'adgroups', field: 'campaignId', label: 'ad groups' }],
  adgroups: [
    { endpoint: 'keywords', field: 'adGroupId', label: 'keywords' },
    { endpoint: 'ads', field: 'adGroupId', label: 'ads' },
  ],
};
const LEVEL_LABELS: Readonly<Record<string, string>> = {
  accounts: 'Accounts',
  campaigns: 'Campaigns',
  adgroups: 'Ad groups',
  keywords: 'Keywords',
  ads: 'Ads',
};

export interface DrillTarget {
  readonly endpoint: string;
  readonly field: string;
  /** `campaigns`, `ad groups`: what the link opens. */
  readonly label: string;
}

/** The levels a row of `endpoint` opens: those the service has and can filter by the row's id. */
export function drillTargets(endpoint: string, endpoints: readonly ReportEndpoint[]): DrillTarget[] {
  return (NEXT[endpoint] ?? []).filter((target) =>
    endpoints.some((e) => e.path === target.endpoint && e.filterable.includes(target.field)),
  );
}

/** The report of a row's next level: filtered to the row, first page, the rest of the view kept. */
export function drilledState(state: ReportState, target: DrillTarget, id: number, name: string): ReportState {
  const step: DrillStep = { endpoint: state.endpoint, id, name };
  return {
    ...state,
    endpoint: target.endpoint,
    filter: `${target.field} == ${id}`,
    sort: '',
    offset: 0,
    drill: [...(state.drill ?? []), step],
  };
}

export interface Crumb {
  readonly label: string;
  /** Where it leads; undefined for the level shown. */
  readonly state: ReportState | undefined;
}

/** The breadcrumb of a drilled report: the top level, each row opened, the level shown last. */
export function breadcrumb(state: ReportState): Crumb[] {
  const drill = state.drill ?? [];
  if (drill.length === 0) return [];
  const first = drill[0]!;
  const crumbs: Crumb[] = [
    {
      label: `All ${(LEVEL_LABELS[first.endpoint] ?? first.endpoint).toLowerCase()}`,
      state: { ...state, endpoint: first.endpoint, filter: '', sort: '', offset: 0, drill: undefined },
    },
  ];
  drill.forEach((step, i) => {
    const level = drill[i + 1]?.endpoint ?? state.endpoint;
    const target = (NEXT[step.endpoint] ?? []).find((t) => t.endpoint === level);
    const label = `${step.name}: ${target?.label ?? level}`;
    crumbs.push({
      label,
      state:
        i === drill.length - 1 || target === undefined
          ? undefined
          : {
              ...state,
              endpoint: level,
              filter: `${target.field} == ${step.id}`,
              sort: '',
              offset: 0,
              drill: drill.slice(0, i + 1),
            },
    });
  });
  return crumbs;
}
