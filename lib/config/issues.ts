// The messages of configuration problems: each names the key path, shows the value that was given and
// says what is allowed, e.g. `ingest.port: 70000 is too large: at most 65535`. zod's own messages
// ("Invalid input: expected number, received string") say neither the value nor, for enums, the choices.
import type { z } from 'zod';

/** A value as it appears in a message: JSON, cut short. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a section (a mapping of keys)',
  array: 'a list',
  bigint: 'an integer',
};

function expected(what: string): string {
  return ARTICLE[what] ?? what;
}

function bound(issue: { minimum?: unknown; maximum?: unknown; inclusive?: boolean; origin?: string }, big: boolean): string {
  const limit = big ? issue.maximum : issue.minimum;
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      return big ? `longer than ${String(limit)} characters` : Number(limit) === 1 ? 'empty: a value is needed' : `shorter than ${String(limit)} characters`;
    case 'array':
    case 'set':
      return big ? `more than ${String(limit)} items` : `fewer than ${String(limit)} items`;
    default:
      return big ? `too large: at most ${String(limit)}${inclusive ? '' : ' (exclusive)'}` : `too small: at least ${String(limit)}${inclusive ? '' : ' (exclusive)'}`;
  }
}

type RawIssue = z.core.$ZodRawIssue;

/** The per-parse error map: a message for every issue zod raises without one of the schema's own. */
export function configErrorMap(issue: RawIssue): string | undefined {
  const value = showValue(issue.input);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `a value is required (${expected(issue.expected)})`;
      return `${value} is not ${expected(issue.expected === 'number' && issue.format === 'safeint' ? 'int' : issue.expected)}`;
    case 'too_big':
      return `${value} is ${bound(issue, true)}`;
    case 'too_small':
      return `${value} is ${bound(issue, false)}`;
    case 'invalid_value':
      return `${value} is not ${issue.values.length === 1 ? showValue(issue.values[0]) : `one of: ${issue.values.map((v) => String(v)).join(', ')}`}`;
    case 'invalid_format':
      return `${value} is not a valid ${issue.format}`;
    case 'invalid_union': {
      const kinds = new Set<string>();
      for (const branch of issue.errors) for (const i of branch) if (i.code === 'invalid_type') kinds.add(expected(i.expected));
      return kinds.size > 0 ? `${value} is not ${[...kinds].join(' or ')}` : `${value} is not allowed here`;
    }
    case 'not_multiple_of':
      return `${value} is not a multiple of ${String(issue.divisor)}`;
    default:
      return undefined;
  }
}

/** A refinement's own message may not show the value; say it once, unless the message already does. */
export function withValue(message: string, input: unknown): string {
  if (input === undefined || typeof input === 'object') return message;
  const shown = showValue(input);
  return message.includes(shown) || message.includes(String(input)) ? message : `${message} (got ${shown})`;
}
