// Kubernetes label selectors (the `pod_label_selector` of a FlowFilter), parsed as Antrea's labels.Parse
// reads them: requirements separated by commas, all of which must hold:
//   k=v  k==v  k!=v  k in (a,b)  k notin (a,b)  k  !k
// Keys are an optional DNS-subdomain prefix and "/" and a name of up to 63 characters; values up to 63
// characters, possibly empty. A selector that does not parse is an error naming what is wrong.

export type Requirement =
  | { readonly op: 'exists' | 'notExists'; readonly key: string }
  | { readonly op: 'in' | 'notIn'; readonly key: string; readonly values: ReadonlySet<string> };

export type Selector = readonly Requirement[];

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  const [prefix, name] = slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) return `invalid label key "${key}": bad prefix`;
  return NAME.test(name) ? undefined : `invalid label key "${key}"`;
}

function checkValue(value: string): string | undefined {
  return value === '' || NAME.test(value) ? undefined : `invalid label value "${value}"`;
}

/** Splits at commas outside parentheses. */
function splitRequirements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim());
}

/** The selector, or the reason it is not one. "" selects everything. */
export function parseSelector(text: string): { selector: Selector } | { error: string } {
  if (text.trim() === '') return { selector: [] };
  const requirements: Requirement[] = [];
  for (const part of splitRequirements(text)) {
    if (part === '') return { error: `empty requirement in "${text}"` };
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    let r: Requirement;
    if (set !== null) {
      const values = set[3]!.split(',').map((v) => v.trim());
      if (values.length === 1 && values[0] === '') return { error: `"${part}": for 'in' and 'notin' the set of values cannot be empty` };
      const bad = values.map(checkValue).find((e) => e !== undefined);
      if (bad !== undefined) return { error: bad };
      r = { op: set[2] === 'in' ? 'in' : 'notIn', key: set[1]!, values: new Set(values) };
    } else if (cmp !== null) {
      const value = cmp[3]!.trim();
      const bad = checkValue(value);
      if (bad !== undefined) return { error: bad };
      r = { op: cmp[2] === '!=' ? 'notIn' : 'in', key: cmp[1]!, values: new Set([value]) };
    } else if (part.startsWith('!')) {
      r = { op: 'notExists', key: part.slice(1).trim() };
    } else {
      r = { op: 'exists', key: part };
    }
    const badKey = checkKey(r.key);
    if (badKey !== undefined) return { error: badKey };
    requirements.push(r);
  }
  return { selector: requirements };
}

/** Whether labels (absent labels are the empty set) satisfy every requirement. */
export function matchesSelector(selector: Selector, labels: Readonly<Record<string, string>> = {}): boolean {
  return selector.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists': return has;
      case 'notExists': return !has;
      case 'in': return has && r.values.has(labels[r.key]!);
      case 'notIn': return !has || !r.values.has(labels[r.key]!);
    }
  });
}
