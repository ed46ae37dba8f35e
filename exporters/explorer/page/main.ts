// The flow explorer's page: a header (the views, the time range), the view the URL names, and the
// explorer's status. Every change goes through the URL (location.hash), so back, reload and a shared
// link show the same thing; a range of the last N minutes refreshes by itself.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import type { StatusResponse } from '../api-types.js';
import { ApiError, get, setToken } from './api.js';
import { h } from './dom.js';
import { bytes, count, time } from './format.js';
import { DEFAULT_RANGE, href, type PageState, RANGES, type Range, rangeOf, readState, type View, withParams } from './url-state.js';
import { drops } from './views/drops.js';
import { flow } from './views/flow.js';
import { flows } from './views/flows.js';
import { graphView } from './views/graph.js';
import { overview } from './views/overview.js';
import { path } from './views/path.js';

const REFRESH_MS = 10_000;

const VIEWS: Record<View, { title: string; render: (state: PageState, range: Range) => Promise<Node>; live: boolean }> = {
  overview: { title: 'Overview', render: overview, live: true },
  graph: { title: 'Dependency graph', render: graphView, live: true },
  drops: { title: 'Policy drops', render: drops, live: true },
  flows: { title: 'Flow search', render: flows, live: false },
  flow: { title: 'Flow', render: flow, live: false },
  path: { title: 'Path view', render: path, live: false },
};
const MENU: View[] = ['overview', 'graph', 'drops', 'flows', 'path'];

const main = document.getElementById('view')!;
const nav = document.getElementById('views')!;
const picker = document.getElementById('range')!;
const status = document.getElementById('status')!;
let timer: number | undefined;
let rendering = 0;

/** `YYYY-MM-DDTHH:MM` in UTC, as a datetime-local input shows it. */
const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);

function rangePicker(state: PageState, range: Range): HTMLElement {
  const relative = state.params.has('from') ? '' : (state.params.get('range') ?? DEFAULT_RANGE);
  const go = (changes: Record<string, string | number | undefined>) => (location.hash = href(state.view, withParams(state.params, changes)));
  const absolute = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const from = Date.parse(`${form.get('from')}Z`);
    const to = Date.parse(`${form.get('to')}Z`);
    if (from < to) go({ range: undefined, from, to, page: undefined });
  };
  return h('div', { class: 'range' },
    h('label', {}, 'Last ', h('select', { 'aria-label': 'Time range', onchange: (e) => go({ range: (e.target as HTMLSelectElement).value, from: undefined, to: undefined, page: undefined }) },
      !relative && h('option', { value: '', selected: true }, 'custom'),
      ...Object.keys(RANGES).map((r) => h('option', { value: r, selected: r === relative }, r)))),
    h('form', { onsubmit: absolute, class: 'absolute' },
      h('label', {}, 'From (UTC) ', h('input', { type: 'datetime-local', name: 'from', value: local(range.from) })),
      h('label', {}, 'to ', h('input', { type: 'datetime-local', name: 'to', value: local(range.to) })),
      h('button', { type: 'submit' }, 'Apply')));
}

async function showStatus(): Promise<void> {
  try {
    const s = await get<StatusResponse>('status', {});
    const rebuilding = s.rebuilding === undefined ? '' : ` · rebuilding from the log: ${count(s.rebuilding.done)} of ${count(s.rebuilding.total)} records`;
    status.textContent = `${count(s.records)} records folded · memory ${bytes(s.memory.usedBytes)} of ${bytes(s.memory.ceilingBytes)} · horizon ${s.horizonMs / 3_600_000} h${rebuilding} · updated ${time(Date.now())}`;
  } catch {
    status.textContent = '';
  }
}

function tokenForm(message: string): HTMLElement {
  return h('form', {
    class: 'token',
    onsubmit: (e) => {
      e.preventDefault();
      setToken(String(new FormData(e.target as HTMLFormElement).get('token') ?? ''));
      void render(false);
    },
  }, h('p', {}, message), h('label', {}, 'Bearer token ', h('input', { name: 'token', type: 'password', autocomplete: 'off', required: true })), h('button', { type: 'submit' }, 'Use it'));
}

async function render(focus: boolean): Promise<void> {
  const state = readState(location.hash);
  const range = rangeOf(state.params, Date.now());
  const view = VIEWS[state.view];
  const mine = ++rendering;
  document.title = `${view.title} · flowagg explorer`;
  nav.replaceChildren(...MENU.map((v) => h('a', { href: href(v, withParams(state.params, {})), 'aria-current': v === state.view ? 'page' : undefined }, VIEWS[v].title)));
  picker.replaceChildren(rangePicker(state, range));
  main.setAttribute('aria-busy', 'true');
  let content: Node;
  try {
    content = await view.render(state, range);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) content = tokenForm('The API asks for a bearer token (apiServer authentication).');
    else content = h('p', { class: 'error', role: 'alert' }, `Could not load this view: ${(err as Error).message}`);
  }
  if (mine !== rendering) return;
  main.replaceChildren(h('h1', {}, view.title), content);
  main.setAttribute('aria-busy', 'false');
  main.dataset.view = state.view;
  // What the view shows now belongs to this URL (scripts and tests wait for it).
  main.dataset.hash = location.hash;
  if (focus) main.focus();
  void showStatus();
  clearTimeout(timer);
  if (view.live && range.live) timer = window.setTimeout(() => void render(false), REFRESH_MS);
}

window.addEventListener('hashchange', () => void render(true));
void render(false);
