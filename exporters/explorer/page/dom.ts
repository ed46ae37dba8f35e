// A few DOM helpers, so that views build their elements in one expression.
type Child = Node | string | number | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

/** An element with attributes (`onclick` and the like take functions) and children (falsy ones left out). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== undefined && value !== false) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) if (c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
}

export interface Column<T> {
  readonly title: string;
  readonly cell: (row: T) => Child;
  /** Right-aligned figures. */
  readonly numeric?: boolean;
}

/** A table with a caption; `empty` stands in the body when there are no rows. */
export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty = 'Nothing in this time range.'): HTMLTableElement {
  const head = h('tr', {}, ...columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.title)));
  const body = rows.length === 0
    ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty))]
    : rows.map((r) => h('tr', {}, ...columns.map((c) => h('td', { class: c.numeric ? 'num' : undefined }, c.cell(r)))));
  return h('table', {}, h('caption', {}, caption), h('thead', {}, head), h('tbody', {}, ...body));
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', {}, h('h2', {}, title), ...children);
}

/** A figure as a person reads it, with its exact value in the markup (`<data value>`) for scripts and tests. */
export function figure(value: number, text: string): HTMLDataElement {
  return h('data', { value }, text);
}
