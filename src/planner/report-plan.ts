import type { AttributionPart } from '../catalog/attribution.js';
import type { FactColumn } from '../catalog/fact-sources.js';
import { LEVEL_BY_PATH, type EmbedName, type LevelPath } from '../catalog/levels.js';
import { segmentOf, type SegmentKey } from '../catalog/segments.js';
import { measuresOf, statisticOf, type BaseMeasure, type FormulaType } from '../catalog/statistics.js';
import { assertNever } from '../shared/assert-never.js';
import type { ComparedRange } from './compare-range.js';

/**
 * The validated request as the planner takes it: parameter texts already split, nothing
 * interpreted yet. The HTTP layer builds it; the planner never sees a URL.
 */
export interface ReportRequest {
  readonly organizationId: number;
  readonly startDate: string | undefined;
  readonly endDate: string | undefined;
  /** `dateRange`: a preset (TODAY, LAST_7_DAYS, ...) instead of startDate/endDate. */
  readonly dateRange?: string | undefined;
  readonly statistics: readonly string[] | undefined;
  readonly segments: readonly string[] | undefined;
  /** FACEBOOK endpoints: `attributionWindows`, the windows conversions are counted in (default: the facts' 7d_click,1d_view). */
  readonly attributionWindows?: readonly string[] | undefined;
  readonly filter: string | undefined;
  readonly sort: string | undefined;
  /** Raw values of the (repeatable) `formulas` parameter. */
  readonly formulas: readonly string[];
  readonly embed: readonly string[] | undefined;
  /** `name` (or `text` on keywords): exact, `*` wildcard. */
  readonly name: string | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly totals: boolean;
  /** `totals=segments`: besides totals, the totals of every segment bucket (totals is true then). */
  readonly segmentTotals?: boolean | undefined;
  /** `compare`: PREVIOUS_PERIOD, PREVIOUS_YEAR or `YYYY-MM-DD..YYYY-MM-DD`, unchecked. */
  readonly compare?: string | undefined;
  /** `currency`: every money figure converted per day into this supported ISO 4217 code (checked by the caller). */
  readonly currency?: string | undefined;
  /** /accounts/campaign-labels/name/{name}: the label as the path names it and as it is stored (campaignGroup is sys.campaignGroup). */
  readonly campaignLabel?: CampaignLabelName | undefined;
}

export interface CampaignLabelName {
  readonly name: string;
  readonly stored: string;
}

/**
 * With `compare`: a statistic or formula over the compared range (`comparison.statistics.x`) or
 * its relative change ((current - compared) / compared, `change.statistics.x`); absent: the
 * report's own range.
 */
export type ComparedPeriod = 'comparison' | 'change';

/** Where an operand can be evaluated: on fact rows before aggregation, on entities, or on buckets. */
export type Stage = 'fact' | 'entity' | 'bucket';

/**
 * What a reference names, by catalogue names only (the dialect looks the SQL up when it emits):
 * a statistic, an earlier formula, an entity column (a row key, or label_value on campaign-label
 * rows), a label, an account custom field, a segment of the request, a fact column.
 */
export type Operand =
  | { readonly kind: 'statistic'; readonly name: string; readonly period?: ComparedPeriod }
  | { readonly kind: 'formula'; readonly index: number; readonly period?: ComparedPeriod }
  | { readonly kind: 'dimension'; readonly column: string }
  | { readonly kind: 'label'; readonly name: string }
  | { readonly kind: 'customField'; readonly column: string }
  | { readonly kind: 'segment'; readonly key: SegmentKey }
  | { readonly kind: 'fact'; readonly column: FactColumn };

/** The type a value has, decided when its node is built (booleans: call details' isConversion). */
export type ValueType = 'string' | 'number' | 'boolean' | 'null';

/**
 * Every node carries its type (values) and the stages its references need, both decided once
 * when the planner builds it (`stages`: sorted, without repeats; empty for literals).
 */
interface Staged {
  readonly stages: readonly Stage[];
}

/** A value: numbers and strings from the text, references, arithmetic. */
export type ValueNode = Staged &
  (
    | { readonly kind: 'literal'; readonly value: string | number | boolean | null; readonly type: ValueType }
    | { readonly kind: 'ref'; readonly operand: Operand; readonly type: 'string' | 'number' | 'boolean' }
    | {
        readonly kind: 'arithmetic';
        readonly op: '+' | '-' | '*' | '/';
        readonly left: ValueNode;
        readonly right: ValueNode;
        readonly type: 'number';
      }
    | { readonly kind: 'negate'; readonly operand: ValueNode; readonly type: 'number' }
    | {
        readonly kind: 'function';
        readonly name: 'min' | 'max' | 'abs' | 'round';
        readonly args: readonly ValueNode[];
        readonly type: 'number';
      }
    | {
        readonly kind: 'if';
        readonly test: ConditionNode;
        readonly then: ValueNode;
        readonly otherwise: ValueNode;
        readonly type: 'number';
      }
  );

export type ConditionNode = Staged &
  (
    | {
        readonly kind: 'compare';
        readonly op: '==' | '!=' | '<' | '<=' | '>' | '>=';
        readonly left: ValueNode;
        readonly right: ValueNode;
      }
    | { readonly kind: 'isNull'; readonly value: ValueNode; readonly negated: boolean }
    | {
        readonly kind: 'logical';
        readonly op: 'and' | 'or';
        readonly left: ConditionNode;
        readonly right: ConditionNode;
      }
    | { readonly kind: 'not'; readonly operand: ConditionNode }
    | {
        readonly kind: 'in';
        readonly value: ValueNode;
        readonly list: readonly (string | number | boolean)[];
        readonly includesNull: boolean;
      }
    | {
        readonly kind: 'text';
        readonly fn: 'contains' | 'startsWith' | 'endsWith';
        readonly value: ValueNode;
        readonly pattern: string;
      }
    /** A boolean value as a condition of its own (`isConversion`). */
    | { readonly kind: 'truth'; readonly value: ValueNode }
    /** Known before any row is read (`null == null`). */
    | { readonly kind: 'constant'; readonly value: boolean }
    /**
     * `accountId`: the entity's platform account is linked to one of `accountIds` (to any account
     * when 'any'). A platform account may be linked to several accounts, so this is a set test, not
     * a column: `accountId != 5` means "not linked to 5", `accountId == null` "linked to none".
     */
    | { readonly kind: 'linkedAccount'; readonly accountIds: readonly number[] | 'any'; readonly negated: boolean }
  );

export interface PlannedFormula {
  readonly name: string;
  readonly type: FormulaType;
  readonly value: ValueNode;
}

export interface SortKey {
  readonly value: ValueNode;
  readonly descending: boolean;
}

/** `limit` of an export asked without one: the whole result. */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Everything the SQL compiler needs: plain data (ids, catalogue names and literals; it survives
 * JSON.stringify and JSON.parse unchanged), no SQL, no closures.
 */
export interface ReportPlan {
  /** The endpoint below /reporting/v0 (`campaigns`, `campaigns/facebook`, ...). */
  readonly endpoint: string;
  /** The endpoint's level. */
  readonly level: LevelPath;
  readonly organizationId: number;
  readonly from: string;
  readonly to: string;
  /** Statistic names, in the order rows show them. */
  readonly statistics: readonly string[];
  /** Segment keys, in the order of the request. */
  readonly segments: readonly SegmentKey[];
  readonly formulas: readonly PlannedFormula[];
  /** Conjuncts tested on fact rows before aggregation (device, network). */
  readonly factFilter: ConditionNode | undefined;
  /** Conjuncts over entity fields only, tested before aggregation. */
  readonly entityFilter: ConditionNode | undefined;
  /** The rest: statistics, formulas, segments, mixed ORs; tested on the buckets. */
  readonly bucketFilter: ConditionNode | undefined;
  /** `name`/`text` with `*` turned into a LIKE pattern. */
  readonly namePattern: string | undefined;
  readonly sort: readonly SortKey[];
  /** What rows embed, in the level's order. */
  readonly embed: readonly EmbedName[];
  readonly limit: number;
  readonly offset: number;
  readonly totals: boolean;
  /** `totals=segments`: the statistics of every segment bucket over the whole filtered result. */
  readonly segmentTotals: boolean;
  /** `compare`: the compared range; rows, totals and segment totals carry comparison and change. */
  readonly compare: ComparedRange | undefined;
  /**
   * Money of every row converted per day into this currency; undefined: accounts in their own
   * currency, lower levels in the platform account's.
   */
  readonly currency: string | undefined;
  /** Accounts only: count just the campaigns carrying this label, one row per (account, label value). */
  readonly campaignLabel: CampaignLabelName | undefined;
  /**
   * `attributionWindows` (FACEBOOK): the additive sums read the parts of these windows from the
   * attribution source instead of the facts' default setting; undefined: the facts as they are.
   */
  readonly attributionParts?: readonly AttributionPart[] | undefined;
}

/** Every operand a node references, depth first: what the compiler reads to know which measures a plan needs. */
export function operandsOf(node: ValueNode | ConditionNode): Operand[] {
  const out: Operand[] = [];
  const visit = (n: ValueNode | ConditionNode): void => {
    switch (n.kind) {
      case 'ref':
        out.push(n.operand);
        return;
      case 'literal':
      case 'linkedAccount':
      case 'constant':
        return;
      case 'arithmetic':
      case 'compare':
      case 'logical':
        visit(n.left);
        visit(n.right);
        return;
      case 'negate':
      case 'not':
        visit(n.operand);
        return;
      case 'function':
        n.args.forEach(visit);
        return;
      case 'if':
        visit(n.test);
        visit(n.then);
        visit(n.otherwise);
        return;
      case 'isNull':
      case 'in':
      case 'text':
      case 'truth':
        visit(n.value);
        return;
      default:
        assertNever(n, 'plan node');
    }
  };
  visit(node);
  return out;
}

/** The base measures the statistics, formulas, bucket filter and sort of the plan read. */
export function usedMeasures(plan: ReportPlan): Set<BaseMeasure> {
  const nodes = [
    ...plan.formulas.map((f) => f.value),
    ...(plan.bucketFilter ? [plan.bucketFilter] : []),
    ...plan.sort.map((k) => k.value),
  ];
  const referenced = nodes.flatMap(operandsOf).flatMap((op) => (op.kind === 'statistic' ? [op.name] : []));
  return new Set([...plan.statistics, ...referenced].flatMap((name) => [...measuresOf(statisticOf(name))]));
}

/**
 * Every fact column a plan's sums touch: the scope (organization, day, the platform account,
 * which accounts, markups and currencies join on), the level's key, the campaign of a campaign
 * label, what its segments read and what its fact filter tests. A source must hold them all
 * (../catalog/fact-sources.ts additiveSourceFor); the planner and the compiler ask the same.
 */
export function factColumnsOf(
  plan: Pick<ReportPlan, 'level' | 'segments' | 'factFilter' | 'campaignLabel' | 'attributionParts'>,
): Set<FactColumn> {
  const level = LEVEL_BY_PATH.get(plan.level)!;
  const columns = new Set<FactColumn>(['organization_id', 'day', 'adplatform_account_id']);
  if (level.factKey !== null) columns.add(level.factKey as FactColumn);
  if (plan.campaignLabel !== undefined) columns.add('campaign_id');
  if (plan.attributionParts !== undefined) columns.add('attribution_part');
  for (const key of plan.segments) for (const column of segmentOf(key).reads) columns.add(column);
  if (plan.factFilter !== undefined)
    for (const operand of operandsOf(plan.factFilter)) if (operand.kind === 'fact') columns.add(operand.column);
  return columns;
}
