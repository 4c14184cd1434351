import 'uplot/dist/uPlot.min.css';
import './explorer.css';
import { AdreportError } from '../client/index.js';
import { byId } from './dom.js';
import { downloadReport, fetchEndpoints, fetchReport } from './report-api.js';
import { ReportForm } from './report-form.js';
import { formulaText, typedPosition, type ExportFormat } from './report-query.js';
import { hashOfState, stateFromHash, type ReportState } from './report-state.js';
import { ResultsView } from './results-view.js';
import { SavedViewsPanel } from './saved-views.js';
import { setUpSignIn, type Session } from './sign-in.js';

/**
 * The explorer's entry: sign in, then the report named by the URL's fragment. Every change of the
 * report goes through the fragment (hashchange), so back, forward, reload and a shared link all
 * show what the fragment says.
 */
const signIn = setUpSignIn(start);
signIn.show();
// The skip link moves the focus itself: following its #results would replace the report's fragment.
byId('skip-link', HTMLAnchorElement).addEventListener('click', (event) => {
  event.preventDefault();
  const results = byId('results', HTMLElement);
  results.scrollIntoView();
  results.focus();
});

async function start(session: Session): Promise<void> {
  const endpoints = await fetchEndpoints(session.client);
  const explorer = byId('explorer', HTMLElement);
  const signedInAs = byId('signed-in-as', HTMLParagraphElement);
  const signOut = byId('sign-out', HTMLButtonElement);
  let running: AbortController | undefined;
  let current: ReportState | undefined;

  // A run from the form keeps the statistic the chart draws (it falls back to the first one shown when gone).
  // A drilled report keeps its breadcrumb while its level and filter stay as the drill left them.
  const form = new ReportForm(endpoints, (state) => {
    const keep = current?.drill && current.endpoint === state.endpoint && current.filter === state.filter;
    navigate({ ...state, chart: current?.chart, ...(keep ? { drill: current?.drill } : {}) });
  });
  const results = new ResultsView(
    {
      navigate,
      chartChanged(state) {
        current = state;
        history.replaceState(null, '', `#${hashOfState(state)}`);
      },
    },
    endpoints,
  );

  function navigate(state: ReportState): void {
    const hash = `#${hashOfState(state)}`;
    if (location.hash === hash) void run(state);
    else location.hash = hash;
  }

  function showHash(): void {
    const asked = stateFromHash(location.hash);
    const state = { ...asked, endpoint: form.endpointOf(asked.endpoint).path };
    form.show(state);
    void run(state);
  }

  async function run(state: ReportState): Promise<void> {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    current = state;
    form.clearErrors();
    results.loading(state);
    const endpoint = form.endpointOf(state.endpoint);
    try {
      const answer = await fetchReport(session.client, endpoint, state, controller.signal);
      if (running === controller) results.show(answer, state, endpoint);
    } catch (failure) {
      if (controller.signal.aborted) return;
      showFailure(failure, state);
    }
  }

  function showFailure(failure: unknown, state: ReportState): void {
    if (failure instanceof AdreportError) {
      const inPlace = failure.details.filter((detail) => {
        const position =
          detail.field === 'formulas' && detail.position !== undefined
            ? typedPosition(formulaText(state.formulas), detail.position)
            : detail.position;
        return form.showError(detail.field, detail.message, position);
      });
      results.failed(
        inPlace.length > 0
          ? `The service refused the report (HTTP ${failure.status}): the ${inPlace.map((d) => d.field).join(' and ')} it names ${inPlace.length === 1 ? 'is' : 'are'} marked in the form.`
          : `${failure.message} (${failure.code}, HTTP ${failure.status}${failure.requestId ? `, request ${failure.requestId}` : ''})`,
        [...new Set(inPlace.map((d) => d.field))].flatMap((field) => form.controlOf(field) ?? []),
      );
    } else {
      results.failed(
        `The service could not be reached: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    }
  }

  const downloadStatus = byId('download-status', HTMLSpanElement);
  const downloadButtons = [...byId('downloads', HTMLDivElement).querySelectorAll<HTMLButtonElement>('button')];
  for (const button of downloadButtons) {
    button.addEventListener('click', () => {
      if (!current) return;
      const state = current;
      const format = button.dataset.format as ExportFormat;
      for (const b of downloadButtons) b.disabled = true;
      downloadStatus.textContent = `Downloading ${format.toUpperCase()}…`;
      downloadReport(session.client, form.endpointOf(state.endpoint), state, format, (bytes) => {
        downloadStatus.textContent = `Downloading ${format.toUpperCase()}… ${formatBytes(bytes)}`;
      })
        .then(({ blob, fileName }) => {
          saveFile(blob, fileName);
          downloadStatus.textContent = `${fileName}: ${formatBytes(blob.size)}, saved.`;
        })
        .catch((failure: unknown) => {
          downloadStatus.textContent = '';
          showFailure(failure, state);
        })
        .finally(() => {
          for (const b of downloadButtons) b.disabled = false;
        });
    });
  }

  signOut.addEventListener(
    'click',
    () => {
      // The client, its token and its secret go with the page: a reload starts from nothing.
      location.reload();
    },
    { once: true },
  );
  window.addEventListener('hashchange', showHash);
  const savedViews = new SavedViewsPanel(session.client, () => current);
  void savedViews.refresh();

  byId('sign-in', HTMLElement).hidden = true;
  explorer.hidden = false;
  signedInAs.textContent = `Signed in as ${session.clientId}`;
  signedInAs.hidden = false;
  signOut.hidden = false;
  showHash();
  byId('endpoint', HTMLSelectElement).focus();
}

function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken its copy once the click's navigation started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
