// The page's requests: to this server only, under /api/v1/. When the API asks for a bearer token (401),
// the page asks the person for one, keeps it for the browser tab, and sends it from then on.
const TOKEN_KEY = 'flowagg-explorer-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function get<T>(path: string, params: Record<string, string | number | undefined> | URLSearchParams): Promise<T> {
  const query = new URLSearchParams();
  for (const [k, v] of params instanceof URLSearchParams ? params : Object.entries(params)) if (v !== undefined && v !== '') query.set(k, String(v));
  const token = sessionStorage.getItem(TOKEN_KEY);
  const res = await fetch(`/api/v1/${path}?${query}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  const body = (await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }))) as T & { error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}
