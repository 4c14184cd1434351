import { errorFrom } from '../client/errors.js';
import { AdreportError, type AdreportClient } from '../client/index.js';
import { byId, h, replaceChildren } from './dom.js';
import { exportQuery } from './report-query.js';
import { hashOfState, stateFromHash, type ReportState } from './report-state.js';

/**
 * Saved views (`/reporting/v0/views`): the report on screen saved by name for the whole
 * organization, and the organization's list, each a link that opens it (the same fragment a shared
 * URL carries) and a delete button. The calls go through the client's openapi-fetch methods,
 * untyped here so the explorer builds whether or not the client's types list the views yet.
 */
export interface SavedView {
  readonly id: number;
  readonly name: string;
  readonly endpoint: string;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  readonly chart: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
}

type Untyped = (path: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
const VIEWS = '/reporting/v0/views';

async function call(method: Untyped, path: string, init?: unknown): Promise<unknown> {
  const result = await method(path, init);
  if (result.error !== undefined || !result.response.ok) throw errorFrom(result.response, result.error);
  return result.data;
}

export async function listViews(client: AdreportClient): Promise<SavedView[]> {
  const body = (await call(client.GET as unknown as Untyped, VIEWS, { params: { query: { limit: 100 } } })) as {
    views: SavedView[];
  };
  return body.views;
}

export async function saveView(client: AdreportClient, name: string, state: ReportState): Promise<SavedView> {
  const body = (await call(client.POST as unknown as Untyped, VIEWS, {
    body: { view: { name, endpoint: state.endpoint, query: viewQuery(state), chart: state.chart ?? null } },
  })) as { view: SavedView };
  return body.view;
}

export async function deleteView(client: AdreportClient, id: number): Promise<void> {
  await call(client.DELETE as unknown as Untyped, `${VIEWS}/id/${id}`, { parseAs: 'text' });
}

/** A state's GET parameters as a view keeps them: the report's, with the page size (not its offset). */
export function viewQuery(state: ReportState): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(exportQuery(state)))
    if (value !== undefined) query[key] = Array.isArray(value) ? value.map(String) : String(value);
  if (state.limit !== 100) query.limit = String(state.limit);
  return query;
}

/** The state a saved view opens. */
export function stateOfView(view: SavedView): ReportState {
  const params = new URLSearchParams({ endpoint: view.endpoint });
  for (const [key, value] of Object.entries(view.query)) {
    if (key === 'formulas') params.set(key, typeof value === 'string' ? value : value.join('\n'));
    else params.set(key, typeof value === 'string' ? value : value.join(','));
  }
  if (view.chart) params.set('chart', view.chart.includes('.') ? view.chart : `statistics.${view.chart}`);
  params.delete('offset');
  return stateFromHash(params.toString());
}

/** The saved-views panel: name and save, the list with open links and delete buttons. */
export class SavedViewsPanel {
  private readonly form = byId('save-view-form', HTMLFormElement);
  private readonly name = byId('view-name', HTMLInputElement);
  private readonly error = byId('view-name-error', HTMLParagraphElement);
  private readonly status = byId('views-status', HTMLParagraphElement);
  private readonly list = byId('view-list', HTMLUListElement);

  constructor(
    private readonly client: AdreportClient,
    current: () => ReportState | undefined,
  ) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const state = current();
      const name = this.name.value.trim();
      if (!state) return;
      if (name === '') {
        this.showError('Give the view a name.');
        return;
      }
      saveView(this.client, name, state)
        .then(async (view) => {
          this.name.value = '';
          this.name.removeAttribute('aria-invalid');
          replaceChildren(this.error);
          this.status.textContent = `Saved “${view.name}” for everyone in the organization.`;
          await this.refresh();
        })
        .catch((failure: unknown) => this.showError(messageOf(failure)));
    });
  }

  async refresh(): Promise<void> {
    try {
      const views = await listViews(this.client);
      replaceChildren(
        this.list,
        ...views.map((view) => {
          const remove = h(
            'button',
            { type: 'button', class: 'link' },
            'Delete',
            h('span', { class: 'visually-hidden' }, ` “${view.name}”`),
          );
          remove.addEventListener('click', () => {
            remove.disabled = true;
            deleteView(this.client, view.id)
              .then(async () => {
                this.status.textContent = `Deleted “${view.name}”.`;
                await this.refresh();
              })
              .catch((failure: unknown) => {
                remove.disabled = false;
                this.status.textContent = messageOf(failure);
              });
          });
          return h(
            'li',
            { 'data-id': view.id },
            h('a', { href: `${location.pathname}#${hashOfState(stateOfView(view))}` }, view.name),
            h(
              'span',
              { class: 'hint' },
              ` ${view.endpoint}, saved ${view.createdAt.slice(0, 10)} by ${view.createdBy}`,
            ),
            ' ',
            remove,
          );
        }),
      );
      if (views.length === 0) this.status.textContent ||= 'No saved views yet.';
    } catch (failure) {
      this.status.textContent = `The saved views could not be listed: ${messageOf(failure)}`;
    }
  }

  private showError(message: string): void {
    replaceChildren(this.error, message);
    this.name.setAttribute('aria-invalid', 'true');
    this.name.focus();
  }
}

function messageOf(failure: unknown): string {
  if (failure instanceof AdreportError) return `${failure.message} (${failure.code}, HTTP ${failure.status})`;
  return failure instanceof Error ? failure.message : String(failure);
}
