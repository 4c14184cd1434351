/** What the service and the catalog worker (catalog-worker.ts) say to each other. */
export type CatalogAsk =
  | { readonly op: 'describe'; readonly sql: string }
  | { readonly op: 'run'; readonly sql: string; readonly params: readonly (string | null)[] };

export type CatalogRequest = CatalogAsk & { readonly id: number };

export interface CatalogColumn {
  readonly name: string;
  readonly typeOid: number;
}

export type CatalogReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly parameterTypes: readonly number[];
      readonly columns: readonly CatalogColumn[];
    }
  | {
      readonly id: number;
      readonly ok: true;
      readonly columns: readonly CatalogColumn[];
      readonly rows: readonly (readonly (string | null)[])[];
    }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: {
        code: string;
        message: string;
        position?: string | undefined;
        detail?: string | undefined;
        hint?: string | undefined;
      };
    };
